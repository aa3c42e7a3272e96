//! The HTTP JSON control plane, one `picoserve` service: parse the method
//! and path, check the bearer token on every state change, act, and answer
//! with JSON. Every bad input gets a 4xx (or 503 when a queue is full) with
//! `{"error": ...}`; nothing here can stop the device.

use embassy_supervisor::controller::AdmissionPolicy;
use embassy_supervisor::{ControlOp, Mode, TaskNode, try_request_control};
use embassy_time::{Duration, Timer, with_timeout};
use picoserve::ResponseSent;
use picoserve::io::Read;
use picoserve::request::{Path, Request, RequestBodyConnection};
use picoserve::response::{IntoResponse, Response, ResponseWriter, StatusCode};
use picoserve::routing::PathRouterService;

use super::graph::{GRAPH, HTTP, SUP};
use super::json::Json;
use super::{TOKEN, http, jobs, log, status, supervise};

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
    let mut j = Body::new();
    j.raw("{").key(true, "error").str(code);
    if !detail.is_empty() {
        j.key(false, "detail").str(detail);
    }
    j.raw("}");
    j
}

async fn reply<R: Read, W: ResponseWriter<Error = R::Error>>(
    conn: RequestBodyConnection<'_, R>,
    w: W,
    status: u16,
    body: &Body,
) -> Result<ResponseSent, W::Error> {
    let conn = conn.finalize().await?;
    if body.overflow {
        let e = error("response_too_large", "");
        return Response::new(StatusCode::new(500), e.buf.as_str())
            .with_content_type("application/json")
            .write_to(conn, w)
            .await;
    }
    Response::new(StatusCode::new(status), body.buf.as_str())
        .with_content_type("application/json")
        .with_header("Cache-Control", "no-store")
        .write_to(conn, w)
        .await
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
        let is_post = method == "POST";
        let is_get = method == "GET" || method == "HEAD";

        match (segs.as_slice(), is_get, is_post) {
            ([], true, _) => {
                let conn = conn.finalize().await?;
                Response::new(StatusCode::OK, INDEX_HTML)
                    .with_content_type("text/html; charset=utf-8")
                    .write_to(conn, w)
                    .await
            }
            (["api", "graph"], true, _) => reply(conn, w, 200, &status::graph_json()).await,
            (["api", "jobs"], true, _) => reply(conn, w, 200, &status::jobs_json()).await,
            (["api", "events"], true, _) => {
                let since = query_u64(query, "since").unwrap_or(0) as u32;
                let wait = query_u64(query, "wait").unwrap_or(0).min(MAX_WAIT_MS);
                if wait > 0 {
                    let _ = with_timeout(Duration::from_millis(wait), log::wait_after(since)).await;
                }
                reply(conn, w, 200, &status::events_json(since)).await
            }
            (["api", "slow"], true, _) => {
                let ms = query_u64(query, "ms").unwrap_or(1000).min(MAX_WAIT_MS);
                Timer::after_millis(ms).await;
                let mut j = Body::new();
                j.raw("{").key(true, "slept_ms").num(ms);
                j.key(false, "worker").str(self.worker.spec().name).raw("}");
                reply(conn, w, 200, &j).await
            }
            // Every state change: the token first, so a refused request
            // learns nothing and changes nothing.
            (["api", ..], _, true) if !authorized(parts.headers()) => {
                reply(
                    conn,
                    w,
                    401,
                    &error("unauthorized", "send Authorization: Bearer <token>"),
                )
                .await
            }
            (["api", "nodes", name, verb], _, true) => {
                let (status, body) = self.verb(name, verb).await;
                reply(conn, w, status, &body).await
            }
            (["api", "jobs"], _, true) => {
                let (status, body) = submit_job(conn.content_length(), conn).await;
                match body {
                    Ok((conn, body)) => reply(conn, w, status, &body).await,
                    Err(e) => Err(e),
                }
            }
            (["api", "test", "wedge", name], _, true) => {
                let body = match HTTP.iter().position(|m| name_eq(name, m.spec().name)) {
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
                reply(conn, w, body.0, &body.1).await
            }
            (["api", ..], _, _) if !is_get && !is_post => {
                reply(conn, w, 405, &error("method_not_allowed", method)).await
            }
            _ => reply(conn, w, 404, &error("not_found", path)).await,
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
        ms: u32,
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
                    (Some(_), Some(_)) if req.ms == 0 || req.ms > jobs::MAX_JOB_MS => {
                        Err((400, error("bad_duration", "ms in 1..=60000")))
                    }
                    (Some(lane), Some(policy)) => Ok((lane, policy, req.ms)),
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
        Err(jobs::SubmitFail::Busy) => (
            503,
            Ok((conn, error("jobs_busy", "too many jobs in flight; retry"))),
        ),
    }
}

impl Api {
    /// POST /api/nodes/{name}/{verb}.
    async fn verb(&self, name: &str, verb: &str) -> (u16, Body) {
        let Some(node) = find_node(name) else {
            return (404, error("unknown_node", name));
        };
        let target = node.spec().name;
        let ok = |verb: &str, queued: bool| {
            let mut j = Body::new();
            j.raw("{").key(true, "node").str(target);
            j.key(false, "verb").str(verb);
            j.key(false, if queued { "queued" } else { "ok" })
                .bool(true)
                .raw("}");
            j
        };
        match verb {
            "activate" | "deactivate" => {
                let op = if verb == "activate" {
                    ControlOp::Activate
                } else {
                    ControlOp::Deactivate
                };
                match try_request_control(node, op) {
                    Ok(()) => (202, ok(verb, true)),
                    Err(_) => (
                        503,
                        error("mailbox_full", "the control mailbox is full; retry"),
                    ),
                }
            }
            "stop" if core::ptr::eq(node, self.worker) => {
                // This worker cannot await its own ack: a helper does.
                match supervise::stop_later(node) {
                    Ok(()) => (202, ok(verb, true)),
                    Err(supervise::HelpersBusy) => (
                        503,
                        error("helpers_busy", "too many stops in flight; retry"),
                    ),
                }
            }
            "stop" => match SUP.stop_node(node).await {
                Ok(()) => {
                    log::push("verb", target, "stopped", 0);
                    (200, ok(verb, false))
                }
                Err(e) => {
                    log::push("verb", e.node.spec().name, "shutdown_timeout", 0);
                    let mut j = Body::new();
                    j.raw("{").key(true, "error").str("ShutdownTimeout");
                    j.key(false, "node").str(e.node.spec().name).raw("}");
                    (504, j)
                }
            },
            "resume" if node.spec().mode() != Mode::Pause => (
                409,
                error("wrong_mode", "resume applies to Pause nodes; use activate"),
            ),
            "resume" => {
                SUP.resume_node(node);
                log::push("verb", target, "resumed", 0);
                (200, ok(verb, false))
            }
            _ => (
                400,
                error("unknown_verb", "activate, deactivate, stop or resume"),
            ),
        }
    }
}
