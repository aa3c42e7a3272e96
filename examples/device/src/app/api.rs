//! The HTTP JSON control plane, one `picoserve` service: parse the method
//! and path, check the bearer token on every state change, act, and answer
//! with JSON. Every bad input gets a 4xx (or 503 when a queue is full) with
//! `{"error": ...}`; nothing here can stop the device.

use embassy_futures::select::{Either, select};
use embassy_supervisor::controller::AdmissionPolicy;
use embassy_supervisor::{ControlOp, Mode, TaskNode, try_request_control};
use embassy_time::{Duration, Timer, with_timeout};
use picoserve::ResponseSent;
use picoserve::io::Read;
use picoserve::request::{Path, Request, RequestBodyConnection};
use picoserve::response::{Content, IntoResponse, Response, ResponseWriter, StatusCode};
use picoserve::routing::PathRouterService;
use portable_atomic::{AtomicU32, Ordering};

use super::graph::{GRAPH, HTTP, SUP};
use super::json::Json;
use super::{TOKEN, guard, http, jobs, log, status, supervise};

/// Largest request body accepted (the job form is a few dozen bytes).
pub const MAX_BODY: usize = 512;
/// Longest a long-poll or `/api/slow` may hold a worker.
const MAX_WAIT_MS: u64 = 10_000;

static INDEX_HTML: &str = include_str!("../../web/index.html");

/// The service: knows which worker serves the connection (a worker cannot
/// wait for its own stop).
pub struct Api {
    pub worker: &'static TaskNode,
}

/// A response body: the largest, `/api/graph`, is about 4.6 KB.
pub type Body = Json<6144>;

fn error(code: &'static str, detail: &str) -> Body {
    let mut j = error_open(code, detail);
    j.raw("}");
    j
}

/// `{"error":..,"detail":..` left open for more keys.
fn error_open(code: &'static str, detail: &str) -> Body {
    let mut j = Body::new();
    j.raw("{").key(true, "error").str(code);
    if !detail.is_empty() {
        j.key(false, "detail").str(detail);
    }
    j
}

/// How to answer: without a body for HEAD, and with `Allow` for a 405.
#[derive(Clone, Copy)]
struct Out {
    head: bool,
    allow: Option<&'static str>,
}

/// A body, or for HEAD only its length: HEAD gets the headers GET would.
pub struct Bytes<'a> {
    text: &'a str,
    head: bool,
}

impl<'a> Bytes<'a> {
    fn new(text: &'a str, head: bool) -> Self {
        Self { text, head }
    }
}

impl Content for Bytes<'_> {
    fn content_type(&self) -> &'static str {
        "application/json"
    }

    fn content_length(&self) -> usize {
        self.text.len()
    }

    async fn write_content<W: picoserve::io::Write>(self, mut w: W) -> Result<(), W::Error> {
        if !self.head {
            w.write_all(self.text.as_bytes()).await?;
        }
        Ok(())
    }
}

async fn reply<R: Read, W: ResponseWriter<Error = R::Error>>(
    conn: RequestBodyConnection<'_, R>,
    w: W,
    out: Out,
    status: u16,
    body: &Body,
) -> Result<ResponseSent, W::Error> {
    let conn = conn.finalize().await?;
    let e;
    let (status, text) = if body.overflow {
        e = error("response_too_large", "");
        (500, e.buf.as_str())
    } else {
        (status, body.buf.as_str())
    };
    let r = Response::new(StatusCode::new(status), Bytes::new(text, out.head))
        .with_content_type("application/json")
        .with_header("Cache-Control", "no-store");
    match out.allow {
        Some(allow) => r.with_header("Allow", allow).write_to(conn, w).await,
        None => r.write_to(conn, w).await,
    }
}

/// Names compare without their brackets, raw or percent-encoded, so
/// `HTTP[1]`, `HTTP%5B1%5D` and `HTTP1` all name pool member 1.
fn name_eq(given: &str, name: &str) -> bool {
    let mut a = given
        .split("%5B")
        .flat_map(|s| s.split("%5b"))
        .flat_map(|s| s.split("%5D"))
        .flat_map(|s| s.split("%5d"))
        .flat_map(|s| s.chars())
        .filter(|c| *c != '[' && *c != ']');
    let mut b = name.chars().filter(|c| *c != '[' && *c != ']');
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x == y => {}
            _ => return false,
        }
    }
}

fn find_node(name: &str) -> Option<&'static TaskNode> {
    GRAPH
        .nodes
        .iter()
        .flatten()
        .copied()
        .find(|n| name_eq(name, n.spec().name))
}

fn query_u64(query: Option<&str>, key: &str) -> Option<u64> {
    query?
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.parse().ok())
}

fn authorized(headers: picoserve::request::Headers<'_>) -> bool {
    headers.get("authorization").is_some_and(|v| {
        v.as_str()
            .ok()
            .and_then(|s| s.strip_prefix("Bearer "))
            .is_some_and(|t| t == TOKEN)
    })
}

/// Which methods a known path takes (for `405` and its `Allow` header).
fn allowed(segs: &[&str]) -> Option<&'static str> {
    match segs {
        [] | ["api", "graph"] | ["api", "events"] | ["api", "slow"] | ["api", "jobs", _] => {
            Some("GET, HEAD")
        }
        ["api", "jobs"] => Some("GET, HEAD, POST"),
        ["api", "nodes", _, _]
        | ["api", "confirm"]
        | ["api", "reboot"]
        | ["api", "test", "wedge", _] => Some("POST"),
        _ => None,
    }
}

/// Parse a duration in ms from the query: absent is `default`; anything
/// not a whole number in `0..=MAX_WAIT_MS` is an error.
fn duration_ms(query: Option<&str>, key: &str, default: u64) -> Result<u64, ()> {
    let Some(q) = query else {
        return Ok(default);
    };
    match q
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
    {
        None => Ok(default),
        Some((_, v)) => match v.parse::<u64>() {
            Ok(ms) if ms <= MAX_WAIT_MS => Ok(ms),
            _ => Err(()),
        },
    }
}

fn flag(query: Option<&str>, key: &str) -> bool {
    query.is_some_and(|q| {
        q.split('&').any(|kv| {
            kv == key
                || kv
                    .split_once('=')
                    .is_some_and(|(k, v)| k == key && v != "0")
        })
    })
}

/// Unauthenticated long-polls that may hold a worker at once: the rest are
/// answered at once (a long-poll waits *up to* its `wait`), so anonymous
/// clients cannot park every worker.
pub const MAX_ANON_WAITS: u32 = 3;
static ANON_WAITS: AtomicU32 = AtomicU32::new(0);

/// Unauthenticated long-polls waiting now.
pub fn anon_waits() -> u32 {
    ANON_WAITS.load(Ordering::Relaxed)
}

struct WaitPermit;

impl WaitPermit {
    fn take() -> Option<Self> {
        ANON_WAITS
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_ANON_WAITS).then_some(n + 1)
            })
            .ok()
            .map(|_| Self)
    }
}

impl Drop for WaitPermit {
    fn drop(&mut self) {
        ANON_WAITS.sub(1, Ordering::AcqRel);
    }
}

/// Run `f` while beating for `node`: a documented long wait is not a stale
/// worker.
async fn beating<F: core::future::Future>(node: &'static TaskNode, f: F) -> F::Output {
    let beat = async {
        loop {
            node.beat();
            Timer::after_secs(1).await;
        }
    };
    match select(f, beat).await {
        Either::First(v) => v,
        Either::Second(never) => never,
    }
}

impl PathRouterService<()> for Api {
    async fn call_path_router_service<R: Read, W: ResponseWriter<Error = R::Error>>(
        &self,
        _state: &(),
        _params: (),
        path: Path<'_>,
        request: Request<'_, R>,
        w: W,
    ) -> Result<ResponseSent, W::Error> {
        let parts = request.parts;
        let conn = request.body_connection;
        let method = parts.method();
        let path = path.encoded();
        let query = parts.query().map(|q| q.0);
        let segs: heapless::Vec<&str, 6> =
            path.split('/').filter(|s| !s.is_empty()).take(6).collect();
        let head = method == "HEAD";
        let is_get = method == "GET" || head;
        let is_post = method == "POST";
        let out = Out { head, allow: None };

        // Framing first: a body this server cannot delimit is refused
        // before anything else reads it.
        let headers = parts.headers();
        if headers
            .iter()
            .filter(|(k, _)| *k == "content-length")
            .count()
            > 1
        {
            let e = error("duplicate_content_length", "send one Content-Length");
            return reply(conn, w, out, 400, &e).await;
        }
        if headers.get("transfer-encoding").is_some() {
            let e = error(
                "length_required",
                "chunked bodies are not accepted: send Content-Length",
            );
            return reply(conn, w, out, 411, &e).await;
        }
        let authed = authorized(headers);

        let allow = allowed(&segs);
        let method_ok = match allow {
            None => true,
            Some(a) => (is_get && a.contains("GET")) || (is_post && a.contains("POST")),
        };
        if !method_ok {
            let out = Out { head, allow };
            return reply(conn, w, out, 405, &error("method_not_allowed", method)).await;
        }
        // Every state change (and the load-test hook): the token first, so
        // a refused request learns nothing and changes nothing.
        let needs_token = is_post || segs.as_slice() == ["api", "slow"];
        if segs.first() == Some(&"api") && needs_token && !authed {
            let e = error("unauthorized", "send Authorization: Bearer <token>");
            return reply(conn, w, out, 401, &e).await;
        }

        match segs.as_slice() {
            [] => {
                let conn = conn.finalize().await?;
                let r = Response::new(StatusCode::OK, Bytes::new(INDEX_HTML, head))
                    .with_content_type("text/html; charset=utf-8");
                r.write_to(conn, w).await
            }
            ["api", "graph"] => reply(conn, w, out, 200, &status::graph_json()).await,
            ["api", "jobs"] if is_get => reply(conn, w, out, 200, &status::jobs_json()).await,
            ["api", "jobs", id] => {
                let (code, body) = match id.parse::<u32>().ok().map(jobs::get) {
                    Some(jobs::Lookup::Found(r)) => (200, status::job_json(&r)),
                    Some(jobs::Lookup::Evicted) => (
                        410,
                        error(
                            "evicted",
                            "finished, and its row was reused (see evicted in /api/jobs)",
                        ),
                    ),
                    _ => (404, error("unknown_job", id)),
                };
                reply(conn, w, out, code, &body).await
            }
            ["api", "events"] => {
                let since = query_u64(query, "since").unwrap_or(0) as u32;
                let Ok(mut wait) = duration_ms(query, "wait", 0) else {
                    let e = error("bad_duration", "wait in 0..=10000 ms");
                    return reply(conn, w, out, 400, &e).await;
                };
                let permit = if wait > 0 && !authed {
                    let p = WaitPermit::take();
                    if p.is_none() {
                        wait = 0;
                    }
                    p
                } else {
                    None
                };
                if wait > 0 {
                    let f = with_timeout(Duration::from_millis(wait), log::wait_after(since));
                    let _ = beating(self.worker, f).await;
                }
                drop(permit);
                reply(conn, w, out, 200, &status::events_json(since)).await
            }
            ["api", "slow"] => {
                let Ok(ms) = duration_ms(query, "ms", 1000) else {
                    let e = error("bad_duration", "ms in 0..=10000");
                    return reply(conn, w, out, 400, &e).await;
                };
                beating(self.worker, Timer::after_millis(ms)).await;
                let mut j = Body::new();
                j.raw("{").key(true, "slept_ms").num(ms);
                j.key(false, "worker").str(self.worker.spec().name).raw("}");
                reply(conn, w, out, 200, &j).await
            }
            ["api", "nodes", name, verb] => {
                let force = flag(query, "force");
                let confirm_ms = match query_u64(query, "confirm_ms") {
                    None => Ok(guard::DEFAULT_CONFIRM_MS),
                    Some(ms)
                        if (guard::CONFIRM_MS_RANGE.0..=guard::CONFIRM_MS_RANGE.1)
                            .contains(&ms) =>
                    {
                        Ok(ms)
                    }
                    Some(_) => Err(()),
                };
                let (status, body) = match confirm_ms {
                    Ok(ms) => self.verb(name, verb, force, ms).await,
                    Err(()) => (400, error("bad_duration", "confirm_ms in 2000..=300000")),
                };
                reply(conn, w, out, status, &body).await
            }
            ["api", "reboot"] => {
                let (code, body) = match supervise::reboot_later() {
                    Ok(()) => {
                        let mut j = Body::new();
                        j.raw("{").key(true, "rebooting").bool(true);
                        j.key(false, "in_ms")
                            .num(supervise::REBOOT_DELAY_MS)
                            .raw("}");
                        (202, j)
                    }
                    Err(supervise::HelpersBusy) => {
                        (409, error("already_rebooting", "a reboot is on its way"))
                    }
                };
                reply(conn, w, out, code, &body).await
            }
            ["api", "confirm"] => {
                let (code, body) = if guard::confirm() {
                    let mut j = Body::new();
                    j.raw("{").key(true, "confirmed").bool(true).raw("}");
                    (200, j)
                } else {
                    (
                        409,
                        error("nothing_to_confirm", "no forced change is pending"),
                    )
                };
                reply(conn, w, out, code, &body).await
            }
            ["api", "jobs"] => {
                let (status, body) = submit_job(conn.content_length(), conn).await;
                match body {
                    Ok((conn, body)) => reply(conn, w, out, status, &body).await,
                    Err(e) => Err(e),
                }
            }
            ["api", "test", "wedge", name] => {
                let body = match HTTP.iter().position(|m| name_eq(name, m.spec().name)) {
                    // Only a member that is up: a wedge left on a member
                    // that is down would hold the stop of whatever later
                    // instance it gets, in another test.
                    Some(i) if !HTTP[i].is_running() => (409, error("not_running", name)),
                    Some(i) => {
                        http::wedge(i);
                        let mut j = Body::new();
                        j.raw("{")
                            .key(true, "wedged")
                            .str(HTTP[i].spec().name)
                            .raw("}");
                        (200, j)
                    }
                    None => (400, error("not_a_pool_worker", name)),
                };
                reply(conn, w, out, body.0, &body.1).await
            }
            _ if !is_get && !is_post => {
                reply(conn, w, out, 405, &error("method_not_allowed", method)).await
            }
            _ => reply(conn, w, out, 404, &error("not_found", path)).await,
        }
    }
}

/// POST /api/jobs: read and check the body, submit. The connection comes
/// back with the answer (reading the body borrows it).
#[allow(clippy::type_complexity)]
async fn submit_job<'r, R: Read>(
    len: usize,
    mut conn: RequestBodyConnection<'r, R>,
) -> (u16, Result<(RequestBodyConnection<'r, R>, Body), R::Error>) {
    #[derive(serde::Deserialize)]
    struct JobReq<'a> {
        lane: &'a str,
        #[serde(default)]
        policy: Option<&'a str>,
        ms: i64,
    }
    /// The same form with `ms` unread: if only `ms` failed to parse (a
    /// fraction, an exponent, beyond i64), it is `bad_duration`.
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct JobReqAnyMs<'a> {
        lane: &'a str,
        #[serde(default)]
        policy: Option<&'a str>,
        ms: serde::de::IgnoredAny,
    }
    if len > MAX_BODY {
        return (
            413,
            Ok((conn, error("body_too_large", "at most 512 bytes"))),
        );
    }
    let parsed = match conn.body().read_all().await {
        Err(_) => Err((400, error("unreadable_body", ""))),
        Ok(bytes) => match serde_json_core::from_slice::<JobReq>(bytes) {
            Err(_) if serde_json_core::from_slice::<JobReqAnyMs>(bytes).is_ok() => Err((
                400,
                error("bad_duration", "ms: a whole number in 1..=60000"),
            )),
            Err(_) => Err((
                400,
                error(
                    "malformed_json",
                    "want {\"lane\":\"calibrate\"|\"update\",\"policy\":\"queue\"|\"replace\",\"ms\":N}",
                ),
            )),
            Ok((req, _)) => {
                let policy = match req.policy.unwrap_or("queue") {
                    "queue" => Some(AdmissionPolicy::Queue),
                    "replace" => Some(AdmissionPolicy::Replace),
                    _ => None,
                };
                match (jobs::Lane::parse(req.lane), policy) {
                    (None, _) => Err((400, error("unknown_lane", "calibrate or update"))),
                    (_, None) => Err((400, error("unknown_policy", "queue or replace"))),
                    (Some(_), Some(_)) if !(1..=jobs::MAX_JOB_MS as i64).contains(&req.ms) => {
                        Err((
                            400,
                            error("bad_duration", "ms: a whole number in 1..=60000"),
                        ))
                    }
                    (Some(lane), Some(policy)) => Ok((lane, policy, req.ms as u32)),
                }
            }
        },
    };
    let (lane, policy, ms) = match parsed {
        Ok(v) => v,
        Err((status, body)) => return (status, Ok((conn, body))),
    };
    match jobs::submit(supervise::spawner(), lane, policy, ms) {
        Ok(id) => {
            let mut j = Body::new();
            j.raw("{").key(true, "id").num(id);
            j.key(false, "lane").str(lane.name());
            j.key(false, "policy")
                .str(if policy == AdmissionPolicy::Replace {
                    "replace"
                } else {
                    "queue"
                });
            j.key(false, "ms").num(ms).raw("}");
            (202, Ok((conn, j)))
        }
        Err(jobs::SubmitFail::QueueFull) => (
            503,
            Ok((
                conn,
                error(
                    "queue_full",
                    "this lane holds 5 jobs (1 running, 4 queued); retry later or use replace",
                ),
            )),
        ),
        Err(jobs::SubmitFail::TargetDisabled) => (
            409,
            Ok((
                conn,
                error(
                    "target_disabled",
                    "the lane's node, or one it depends on, is deactivated: activate it first",
                ),
            )),
        ),
        Err(jobs::SubmitFail::Busy) => (
            503,
            Ok((conn, error("jobs_busy", "too many jobs in flight; retry"))),
        ),
    }
}

impl Api {
    /// POST /api/nodes/{name}/{verb}.
    async fn verb(&self, name: &str, verb: &str, force: bool, confirm_ms: u64) -> (u16, Body) {
        let Some(node) = find_node(name) else {
            return (404, error("unknown_node", name));
        };
        let target = node.spec().name;
        let ok = |verb: &str, queued: bool| {
            let mut j = Body::new();
            j.raw("{").key(true, "node").str(target);
            j.key(false, "verb").str(verb);
            j.key(false, if queued { "queued" } else { "ok" })
                .bool(true);
            j
        };
        let done = |mut j: Body| {
            j.raw("}");
            j
        };
        // A verb that takes something down: refuse it if it would leave no
        // listener, unless forced (then it reverts unless confirmed).
        let down = match verb {
            "deactivate" => Some(guard::Verb::Deactivate),
            "stop" if node.spec().mode() != Mode::Pause => Some(guard::Verb::Stop),
            _ => None,
        };
        let mut armed = None;
        if let Some(v) = down
            && let guard::Check::Cuts { mask } = guard::check(node, v)
        {
            if !force {
                let mut j = error_open(
                    "would_cut_control_plane",
                    "this leaves no HTTP listener (ETH down, or ADMIN and the pool both down); resend with ?force=1 to apply it: it reverts by itself unless POST /api/confirm arrives in time",
                );
                j.key(false, "node").str(target);
                j.key(false, "verb").str(verb).raw("}");
                return (409, j);
            }
            armed = Some(mask);
        }
        let forced = |mut j: Body, mask: Option<u32>| {
            if let Some(mask) = mask {
                guard::arm(mask, confirm_ms);
                j.key(false, "forced").bool(true);
                j.key(false, "reverts_in_ms").num(confirm_ms);
                j.key(false, "confirm").str("POST /api/confirm");
            }
            done(j)
        };
        match verb {
            "activate" | "deactivate" | "restart" => {
                let op = match verb {
                    "activate" => ControlOp::Activate,
                    "restart" => ControlOp::Restart,
                    _ => ControlOp::Deactivate,
                };
                match try_request_control(node, op) {
                    Ok(()) => {
                        match down {
                            Some(v) => guard::accepted_down(node, v),
                            None => guard::accepted_up(node),
                        }
                        (202, forced(ok(verb, true), armed))
                    }
                    Err(_) => (
                        503,
                        error("mailbox_full", "the control mailbox is full; retry"),
                    ),
                }
            }
            "stop" if core::ptr::eq(node, self.worker) => {
                // This worker cannot await its own ack: a helper does.
                match supervise::stop_later(node) {
                    Ok(()) => {
                        guard::accepted_down(node, guard::Verb::Stop);
                        (202, forced(ok(verb, true), armed))
                    }
                    Err(supervise::HelpersBusy) => (
                        503,
                        error("helpers_busy", "too many stops in flight; retry"),
                    ),
                }
            }
            "stop" => {
                if down.is_some() {
                    guard::accepted_down(node, guard::Verb::Stop);
                }
                let r = SUP.stop_node(node).await;
                guard::stop_done(node);
                match r {
                    Ok(()) => {
                        log::push("verb", target, "stopped", 0);
                        (200, forced(ok(verb, false), armed))
                    }
                    Err(e) => {
                        log::push("verb", e.node.spec().name, "shutdown_timeout", 0);
                        let mut j = Body::new();
                        j.raw("{").key(true, "error").str("ShutdownTimeout");
                        j.key(false, "node").str(e.node.spec().name).raw("}");
                        (504, j)
                    }
                }
            }
            "resume" if node.spec().mode() != Mode::Pause => (
                409,
                error("wrong_mode", "resume applies to Pause nodes; use activate"),
            ),
            "resume" => {
                SUP.resume_node(node);
                log::push("verb", target, "resumed", 0);
                (200, done(ok(verb, false)))
            }
            _ => (
                400,
                error(
                    "unknown_verb",
                    "activate, deactivate, restart, stop or resume",
                ),
            ),
        }
    }
}
