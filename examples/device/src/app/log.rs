//! The device's event log: the supervisor's event stream (lifecycle, pool,
//! control, controller) plus the application's own entries (verb outcomes,
//! job outcomes), numbered, in a fixed ring. `GET /api/events?since=N`
//! reads it; a long-poll waits here for the next entry.

use core::cell::{Cell, RefCell};
use core::future::poll_fn;
use core::task::Poll;

use embassy_supervisor::event::{self, EventKind, WaitResult};
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::waitqueue::MultiWakerRegistration;
use embassy_time::Instant;
use portable_atomic::{AtomicU32, Ordering};

/// This boot's id: a reader that sees it change knows the device rebooted
/// and its old `since` means nothing. Seeded from the boot time and the
/// MAC, then mixed once with the moment the first address came (which
/// varies from boot to boot even where the boot itself is deterministic,
/// as under QEMU); nobody can reach the device before that.
pub static BOOT_ID: AtomicU32 = AtomicU32::new(0);
static BOOT_MIXED: portable_atomic::AtomicBool = portable_atomic::AtomicBool::new(false);

/// Mix `ticks` into the boot id, the first time only.
pub fn mix_boot_id(ticks: u64) {
    if !BOOT_MIXED.swap(true, Ordering::AcqRel) {
        let b = BOOT_ID.load(Ordering::Relaxed) as u64;
        let m = ((b << 32) ^ ticks).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        BOOT_ID.store(((m >> 32) as u32).max(1), Ordering::Relaxed);
    }
}

/// Entries kept; older ones are overwritten (a reader asking for them is
/// told how many it missed: `missed` in `GET /api/events`).
pub const LOG_LEN: usize = 256;
/// Long-polls that can wait at once (one per HTTP worker and ADMIN, and spare).
const WAITERS: usize = 8;

/// One entry.
#[derive(Clone, Copy)]
pub struct Entry {
    /// 1, 2, 3, ... in publication order.
    pub seq: u32,
    /// Milliseconds since boot.
    pub at_ms: u32,
    /// What happened ("spawned", "down", "shutdown_timeout", "job", ...).
    pub kind: &'static str,
    /// The node or slot it is about ("" if none).
    pub name: &'static str,
    /// A second word: the control op, the job outcome, ... ("" if none).
    pub info: &'static str,
    /// A number: a job id, a lag count (0 if none).
    pub n: u32,
}

struct Ring {
    entries: [Option<Entry>; LOG_LEN],
    /// Entries pushed so far (the next gets `pushed + 1`). Zero at boot,
    /// as is the whole ring, so it sits in `.bss`, not in flash.
    pushed: u32,
    waiters: MultiWakerRegistration<WAITERS>,
}

static LOG: Mutex<CriticalSectionRawMutex, RefCell<Ring>> = Mutex::new(RefCell::new(Ring {
    entries: [None; LOG_LEN],
    pushed: 0,
    waiters: MultiWakerRegistration::new(),
}));

/// Append an entry and wake the long-polls.
pub fn push(kind: &'static str, name: &'static str, info: &'static str, n: u32) {
    let at_ms = Instant::now().as_millis() as u32;
    LOG.lock(|l| {
        let mut l = l.borrow_mut();
        l.pushed += 1;
        let seq = l.pushed;
        l.entries[seq as usize % LOG_LEN] = Some(Entry {
            seq,
            at_ms,
            kind,
            name,
            info,
            n,
        });
        l.waiters.wake();
    });
}

/// The sequence number the next entry will get.
pub fn next_seq() -> u32 {
    LOG.lock(|l| l.borrow().pushed + 1)
}

/// Entries with `seq > since`, oldest first, into `out`; returns how many
/// were written and how many were missed (overwritten before being read).
/// A `since` at or past the next entry (a reader from an earlier boot) is
/// read as 0, and `reset` says so.
pub fn read_since(since: u32, out: &mut [Entry]) -> (usize, u32, bool) {
    LOG.lock(|l| {
        let l = l.borrow();
        let reset = since >= (l.pushed + 1);
        let since = if reset { 0 } else { since };
        let oldest = (l.pushed + 1).saturating_sub(LOG_LEN as u32).max(1);
        let first = (since + 1).max(oldest);
        let missed = first - (since + 1).min(first);
        let mut n = 0;
        for seq in first..(l.pushed + 1) {
            if n == out.len() {
                break;
            }
            if let Some(e) = l.entries[seq as usize % LOG_LEN] {
                out[n] = e;
                n += 1;
            }
        }
        (n, missed, reset)
    })
}

/// Wait until an entry newer than `since` exists.
pub async fn wait_after(since: u32) {
    poll_fn(|cx| {
        LOG.lock(|l| {
            let mut l = l.borrow_mut();
            if (l.pushed + 1) > since + 1 {
                Poll::Ready(())
            } else {
                l.waiters.register(cx.waker());
                Poll::Pending
            }
        })
    })
    .await
}

/// Copy the supervisor's event stream into the log, forever. An app task,
/// not a node: nothing in the graph may stop the record of what it did.
/// Subscribe before the supervisor starts, so boot is recorded too.
pub fn subscribe() -> Option<event::EventSubscriber> {
    let sub = event::subscribe().ok();
    if sub.is_none() {
        push("log_error", "", "no event subscriber slot", 0);
    }
    sub
}

#[embassy_executor::task]
pub async fn recorder(mut sub: event::EventSubscriber) {
    loop {
        match sub.next_message().await {
            WaitResult::Lagged(n) => push("lagged", "", "", n as u32),
            WaitResult::Message(e) => record(e.kind),
        }
    }
}

/// Per graph slot: times spawned, and how its last instance ended.
static STARTS: [AtomicU32; super::graph::N] = [const { AtomicU32::new(0) }; super::graph::N];
static LAST_END: Mutex<CriticalSectionRawMutex, Cell<[&'static str; super::graph::N]>> =
    Mutex::new(Cell::new([""; super::graph::N]));

fn slot_of(name: &str) -> Option<usize> {
    super::graph::GRAPH
        .nodes
        .iter()
        .position(|n| n.is_some_and(|n| n.spec().name == name))
}

/// Bit `i`: slot `i`'s current instance missed a stop's ack deadline (its
/// body returning later does not hide that).
static TIMED_OUT: AtomicU32 = AtomicU32::new(0);

fn ended(name: &'static str, how: &'static str) {
    if let Some(i) = slot_of(name) {
        if TIMED_OUT.load(Ordering::Relaxed) & (1 << i) != 0 {
            return;
        }
        if how == "shutdown_timeout" {
            TIMED_OUT.or(1 << i, Ordering::Relaxed);
        }
        LAST_END.lock(|c| {
            let mut a = c.get();
            a[i] = how;
            c.set(a);
        });
    }
}

/// (times spawned, how the last instance ended, in the supervisor's words:
/// "" if it never ended, "exited" (its body returned: on a stop or by
/// itself), "down" (acked a stop and parked), "shutdown_timeout" (missed a
/// stop's ack deadline), "spawn_failed").
pub fn node_history(slot: usize) -> (u32, &'static str) {
    (
        STARTS.get(slot).map_or(0, |a| a.load(Ordering::Relaxed)),
        LAST_END.lock(|c| c.get().get(slot).copied().unwrap_or("")),
    )
}

fn record(kind: EventKind) {
    use embassy_supervisor::controller::{AdmissionPolicy, Key, SlotStatusKind};
    fn key(k: Key) -> &'static str {
        match k {
            Key::Name(n) => n,
            _ => "?",
        }
    }
    match kind {
        EventKind::NodeSpawned { node } => {
            if let Some(i) = slot_of(node) {
                STARTS[i].add(1, Ordering::Relaxed);
                TIMED_OUT.and(!(1 << i), Ordering::Relaxed);
            }
            push("spawned", node, "", 0)
        }
        EventKind::SpawnFailed { node } => {
            ended(node, "spawn_failed");
            push("spawn_failed", node, "", 0)
        }
        EventKind::NodeDown { node } => {
            ended(node, "down");
            push("down", node, "", 0)
        }
        EventKind::NodeExited { node } => {
            ended(node, "exited");
            push("exited", node, "", 0)
        }
        EventKind::ShutdownTimeout { node } => {
            ended(node, "shutdown_timeout");
            push("shutdown_timeout", node, "", 0)
        }
        EventKind::Restarted { node } => push("restarted", node, "", 0),
        EventKind::RestartRefused { node } => push("restart_refused", node, "", 0),
        EventKind::PoolGrew { node } => push("pool_grew", node, "", 0),
        EventKind::PoolShrank { node } => push("pool_shrank", node, "", 0),
        EventKind::ControlApplied { node, op } => {
            if op == embassy_supervisor::ControlOp::Deactivate {
                super::guard::applied_deactivate(node);
            }
            push(
                "control",
                node,
                match op {
                    embassy_supervisor::ControlOp::Activate => "activate",
                    embassy_supervisor::ControlOp::Deactivate => "deactivate",
                    embassy_supervisor::ControlOp::Restart => "restart",
                },
                0,
            )
        }
        EventKind::ControllerSubmitted { slot, policy, .. } => push(
            "job_submitted",
            key(slot),
            match policy {
                AdmissionPolicy::Queue => "queue",
                AdmissionPolicy::Replace => "replace",
                _ => "drop_if_running",
            },
            0,
        ),
        EventKind::ControllerRejected { slot, kind, .. } => {
            push("job_rejected", key(slot), reject_name(kind), 0)
        }
        EventKind::ControllerSlotTransition { slot, to, .. } => push(
            "slot",
            key(slot),
            match to {
                SlotStatusKind::Idle => "idle",
                SlotStatusKind::Admitting => "admitting",
                SlotStatusKind::Running => "running",
                _ => "terminating",
            },
            0,
        ),
        _ => push("other", "", "", 0),
    }
}

/// The JSON name of a rejection.
pub fn reject_name(kind: embassy_supervisor::controller::RejectKind) -> &'static str {
    use embassy_supervisor::controller::RejectKind::*;
    match kind {
        SlotBusy => "slot_busy",
        QueueFull => "queue_full",
        SupersededByReplace => "superseded_by_replace",
        NoFreeSlot => "no_free_slot",
        AlreadyRunning => "already_running",
        TargetDisabled => "target_disabled",
        ShuttingDown => "shutting_down",
        #[allow(unreachable_patterns)]
        _ => "rejected",
    }
}
