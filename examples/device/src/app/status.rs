//! The read side of the control plane: the JSON documents `GET /api/graph`,
//! `GET /api/events` and `GET /api/jobs` serve, built from the supervisor's
//! public status (node flags, `trace`, pools, the controller's snapshot)
//! and the application's counters.

use embassy_supervisor::controller::{AdmissionPolicy, Key, SlotStatusKind};
use embassy_supervisor::{Mode, TaskNode, trace};
use embassy_time::Instant;
use portable_atomic::Ordering;

use super::api::Body;
use super::graph::{GRAPH, HTTP, HTTP_POOL};
use super::{guard, http, jobs, log, sensor, supervise, watchdog};

/// Events per response.
const EVENTS_PER_REPLY: usize = 32;

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Terminate => "Terminate",
        Mode::Pause => "Pause",
        Mode::OnDemand => "OnDemand",
    }
}

/// The one-word state the dashboard colours by.
pub fn state_name(n: &TaskNode) -> &'static str {
    if n.is_detached() {
        "detached"
    } else if n.is_running() {
        "running"
    } else if n.spec().mode() == Mode::Pause && n.shutdown_requested() {
        "parked"
    } else if n.is_disabled() {
        "disabled"
    } else if n.has_exited() {
        "exited"
    } else {
        "down"
    }
}

fn us(ticks: u32) -> u64 {
    ticks as u64 * 1_000_000 / embassy_time::TICK_HZ
}

pub fn graph_json() -> Body {
    let mut j = Body::new();
    let now = Instant::now();
    j.raw("{").key(true, "board").str(crate::board::NAME);
    j.key(false, "uptime_ms").num(now.as_millis());
    j.key(false, "now_us").num(now.as_micros());
    j.key(false, "events_next").num(log::next_seq());
    j.key(false, "boot")
        .num(log::BOOT_ID.load(Ordering::Relaxed));
    j.key(false, "thresholds").raw("{");
    j.key(true, "stale_ms")
        .num(watchdog::STALE_AFTER.as_millis())
        .key(false, "stall_ms")
        .num(watchdog::STALL.as_millis())
        .raw("}");
    j.key(false, "guard").raw("{");
    j.key(true, "reverts_in_ms");
    match guard::reverts_in_ms() {
        Some(ms) => j.num(ms),
        None => j.raw("null"),
    };
    j.key(false, "reverts")
        .num(guard::REVERTS.load(Ordering::Relaxed))
        .raw("}");
    let s = supervise::stats();
    j.key(false, "supervisor").raw("{");
    j.key(true, "cpu_us")
        .num(us(s.0))
        .key(false, "polls")
        .num(s.1)
        .key(false, "restarts")
        .num(s.2);
    j.raw("}");
    j.key(false, "executors").raw("[");
    for i in 0..trace::MAX_EXECUTORS {
        if let Some(e) = trace::executor_stats(i) {
            if i > 0 {
                j.raw(",");
            }
            j.raw("{").key(true, "id").num(i);
            j.key(false, "elapsed_us").num(us(e.elapsed_ticks));
            j.key(false, "idle_us").num(us(e.idle_ticks));
            j.key(false, "in_poll_us").num(us(e.in_poll_ticks));
            j.key(false, "supervised_us").num(us(e.supervised_ticks));
            j.key(false, "polls").num(e.polls).raw("}");
        }
    }
    j.raw("]");
    let stale = watchdog::STALE.load(Ordering::Acquire);
    j.key(false, "nodes").raw("[");
    let mut first = true;
    for (i, n) in GRAPH.nodes.iter().enumerate() {
        let Some(n) = n else { continue };
        if !first {
            j.raw(",");
        }
        first = false;
        let spec = n.spec();
        j.raw("{").key(true, "name").str(spec.name);
        j.key(false, "slot").num(i);
        j.key(false, "mode").str(mode_name(spec.mode()));
        j.key(false, "state").str(state_name(n));
        j.key(false, "deps").raw("[");
        for (k, d) in GRAPH.deps[i].iter().enumerate() {
            if k > 0 {
                j.raw(",");
            }
            j.str(GRAPH.nodes[*d as usize].map_or("?", |d| d.spec().name));
        }
        j.raw("]");
        j.key(false, "pool")
            .raw(if HTTP_POOL.member_index(n).is_some() {
                "\"HTTP\""
            } else {
                "null"
            });
        j.key(false, "executor").str(if spec.name == "WATCHDOG" {
            "interrupt"
        } else {
            "thread"
        });
        j.key(false, "running").bool(n.is_running());
        j.key(false, "ready").bool(n.is_ready());
        j.key(false, "busy").bool(n.is_busy());
        j.key(false, "disabled").bool(n.is_disabled());
        j.key(false, "detached").bool(n.is_detached());
        j.key(false, "exited").bool(n.has_exited());
        j.key(false, "parked").bool(state_name(n) == "parked");
        j.key(false, "stale").bool(stale & (1 << i) != 0);
        if watchdog::beats(n) {
            j.key(false, "heartbeat_age_ms")
                .num(us(n.ticks_since_beat()) / 1000);
        }
        let (starts, last_end) = log::node_history(i);
        j.key(false, "starts").num(starts);
        j.key(false, "last_end").str(last_end);
        let t = n.trace_stats();
        j.key(false, "cpu_us").num(us(t.exec_ticks));
        j.key(false, "polls").num(t.polls);
        j.key(false, "max_poll_us").num(us(t.max_poll_ticks));
        j.raw("}");
    }
    j.raw("]");
    let (min, max) = embassy_supervisor::Pool::bounds(&HTTP_POOL);
    let running = HTTP.iter().filter(|m| m.is_running()).count();
    let busy = HTTP.iter().filter(|m| m.is_busy()).count();
    j.key(false, "pools").raw("[{");
    j.key(true, "name")
        .str("HTTP")
        .key(false, "min")
        .num(min)
        .key(false, "max")
        .num(max);
    j.key(false, "running")
        .num(running)
        .key(false, "busy")
        .num(busy);
    j.raw("}]");
    let snap = jobs::CTRL.snapshot();
    j.key(false, "controller")
        .raw("{")
        .key(true, "intake")
        .num(snap.intake);
    j.key(false, "slots").raw("[");
    let mut first = true;
    for v in snap.slots.iter().flatten() {
        if !first {
            j.raw(",");
        }
        first = false;
        j.raw("{").key(true, "key");
        match v.key {
            Key::Name(n) => j.str(n),
            Key::Id(id) => j.num(id),
        };
        j.key(false, "status").str(match v.status {
            SlotStatusKind::Idle => "idle",
            SlotStatusKind::Admitting => "admitting",
            SlotStatusKind::Running => "running",
            _ => "terminating",
        });
        j.key(false, "owner");
        match v.owner {
            Some(o) => j.str(o.spec().name),
            None => j.raw("null"),
        };
        j.key(false, "queued").num(v.queued);
        j.key(false, "in_status_ms")
            .num(v.in_status.as_millis())
            .raw("}");
    }
    j.raw("]}");
    j.key(false, "http").raw("{");
    j.key(true, "served")
        .num(http::SERVED.load(Ordering::Relaxed));
    j.key(false, "shed").num(http::SHED.load(Ordering::Relaxed));
    j.key(false, "evicted_slow_heads")
        .num(http::EVICTED.load(Ordering::Relaxed));
    j.key(false, "oversized_heads")
        .num(http::OVERSIZED.load(Ordering::Relaxed));
    j.key(false, "anonymous_waits")
        .num(super::api::anon_waits())
        .raw("}");
    j.key(false, "sensor").raw("{");
    j.key(true, "last")
        .num(sensor::LAST.load(Ordering::Relaxed));
    j.key(false, "samples")
        .num(sensor::SAMPLES.load(Ordering::Relaxed));
    j.key(false, "reports")
        .num(sensor::REPORTS.load(Ordering::Relaxed))
        .raw("}");
    j.key(false, "stalls")
        .num(watchdog::STALLS.load(Ordering::Relaxed));
    j.raw("}");
    j
}

pub fn events_json(since: u32) -> Body {
    let mut buf = [log::Entry {
        seq: 0,
        at_ms: 0,
        kind: "",
        name: "",
        info: "",
        n: 0,
    }; EVENTS_PER_REPLY];
    let (n, missed, reset) = log::read_since(since, &mut buf);
    let mut j = Body::new();
    let since = if reset { 0 } else { since };
    let next = buf[..n].last().map_or(since, |e| e.seq);
    j.raw("{").key(true, "last").num(next);
    j.key(false, "missed").num(missed);
    j.key(false, "reset").bool(reset);
    j.key(false, "boot")
        .num(log::BOOT_ID.load(Ordering::Relaxed));
    j.key(false, "capacity").num(log::LOG_LEN);
    j.key(false, "events").raw("[");
    for (k, e) in buf[..n].iter().enumerate() {
        if k > 0 {
            j.raw(",");
        }
        j.raw("{").key(true, "seq").num(e.seq);
        j.key(false, "at_ms").num(e.at_ms);
        j.key(false, "kind").str(e.kind);
        j.key(false, "name").str(e.name);
        j.key(false, "info").str(e.info);
        j.key(false, "n").num(e.n).raw("}");
    }
    j.raw("]}");
    j
}

fn job_fields(j: &mut Body, r: &jobs::JobRow) {
    j.raw("{").key(true, "id").num(r.id);
    j.key(false, "lane").str(r.lane.name());
    j.key(false, "policy")
        .str(if r.policy == AdmissionPolicy::Replace {
            "replace"
        } else {
            "queue"
        });
    j.key(false, "ms").num(r.ms);
    j.key(false, "state").str(match r.state {
        jobs::JobState::Submitted => "submitted",
        jobs::JobState::Running => "running",
        jobs::JobState::Done(o) => jobs::outcome_name(o),
    });
    j.key(false, "started_seq").num(r.started_seq);
    j.key(false, "submitted_ms").num(r.submitted_ms);
    j.key(false, "started_ms").num(r.started_ms);
    j.key(false, "ended_ms").num(r.ended_ms).raw("}");
}

pub fn job_json(r: &jobs::JobRow) -> Body {
    let mut j = Body::new();
    job_fields(&mut j, r);
    j
}

pub fn jobs_json() -> Body {
    let (rows, evicted) = jobs::rows();
    let mut j = Body::new();
    j.raw("{").key(true, "capacity").num(jobs::ROWS);
    j.key(false, "evicted").num(evicted);
    j.key(false, "jobs").raw("[");
    let mut first = true;
    for r in rows.iter().flatten() {
        if !first {
            j.raw(",");
        }
        first = false;
        job_fields(&mut j, r);
    }
    j.raw("]}");
    j
}
