//! The control plane's lifeline: a command that would leave no HTTP
//! listener (ETH down, or both ADMIN and the pool's path down) is refused
//! with `409 would_cut_control_plane`, unless the client forces it
//! (`?force=1`). A forced cut is a "commit confirmed": it reverts by itself
//! after `confirm_ms` (default 30 s) unless `POST /api/confirm` arrives over
//! the new state, which a cut device can never send, so it comes back.
//!
//! The check reads the nodes' flags plus the commands this API accepted
//! but the driver has not applied yet (`PENDING_DOWN`, cleared when the
//! event log records the command applied, or a stop returns), so two
//! commands sent back to back are judged together.

use core::cell::Cell;

use embassy_futures::select::{Either, select};
use embassy_supervisor::{ControlOp, TaskNode, try_request_control};
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant, Timer};
use portable_atomic::{AtomicU32, Ordering};

use super::graph::{ADMIN, ETH, GRAPH, HTTP, HTTP_POOL, N, NET};
use super::log;

/// A forced cut reverts after this long unless confirmed.
pub const DEFAULT_CONFIRM_MS: u64 = 30_000;
/// The client may choose a confirm window in this range.
pub const CONFIRM_MS_RANGE: (u64, u64) = (2_000, 300_000);

/// Bit `i`: this API accepted a command that takes slot `i` down and the
/// driver has not applied it yet.
static PENDING_DOWN: AtomicU32 = AtomicU32::new(0);
/// Bit `i`: an accepted, not yet applied, deactivate of slot `i` (the
/// node it latches disabled; its dependents are only stopped).
static PENDING_LATCH: AtomicU32 = AtomicU32::new(0);
/// When the last command was added (ms since boot): pending bits older
/// than `PENDING_FOR` are dropped (an applied event the log lagged past
/// must not leave a stale refusal).
static PENDING_AT_MS: AtomicU32 = AtomicU32::new(0);
const PENDING_FOR_MS: u32 = 10_000;

fn pending(mask: &AtomicU32) -> u32 {
    let age =
        (Instant::now().as_millis() as u32).wrapping_sub(PENDING_AT_MS.load(Ordering::Acquire));
    if age > PENDING_FOR_MS {
        0
    } else {
        mask.load(Ordering::Acquire)
    }
}

/// A pending revert: the slots to bring back and when.
#[derive(Clone, Copy)]
struct Armed {
    deadline: Instant,
    mask: u32,
}

static ARMED: Mutex<CriticalSectionRawMutex, Cell<Option<Armed>>> = Mutex::new(Cell::new(None));
static CHANGED: Signal<CriticalSectionRawMutex, ()> = Signal::new();
/// Reverts carried out (shown on the dashboard).
pub static REVERTS: AtomicU32 = AtomicU32::new(0);

fn slot(n: &TaskNode) -> usize {
    GRAPH
        .nodes
        .iter()
        .position(|m| m.is_some_and(|m| core::ptr::eq(m, n)))
        .unwrap_or(N)
}

fn bit(n: &TaskNode) -> u32 {
    match slot(n) {
        i if i < 32 => 1 << i,
        _ => 0,
    }
}

fn pool_bits() -> u32 {
    HTTP.iter().fold(0, |m, n| m | bit(n))
}

/// `mask` plus every slot that depends on one in it, transitively.
fn with_dependents(mut mask: u32) -> u32 {
    loop {
        let mut grown = mask;
        for (i, deps) in GRAPH.deps.iter().enumerate() {
            if deps.iter().any(|d| mask & (1 << *d) != 0) {
                grown |= 1 << i;
            }
        }
        if grown == mask {
            return mask;
        }
        mask = grown;
    }
}

/// `mask` plus every slot one in it depends on, transitively.
fn with_deps(mut mask: u32) -> u32 {
    loop {
        let mut grown = mask;
        for (i, deps) in GRAPH.deps.iter().enumerate() {
            if mask & (1 << i) != 0 {
                for d in deps.iter() {
                    grown |= 1 << *d;
                }
            }
        }
        if grown == mask {
            return mask;
        }
        mask = grown;
    }
}

/// Slots that are down now or will be once accepted commands apply.
fn down_now() -> u32 {
    let pend = pending(&PENDING_DOWN);
    let mut m = pend;
    for (i, n) in GRAPH.nodes.iter().enumerate() {
        // Deactivated counts as down even while its stop wave still runs.
        if let Some(n) = n
            && (!n.is_running() || n.is_disabled())
            && HTTP_POOL.member_index(n).is_none()
        {
            m |= 1 << i;
        }
    }
    // The pool is one path: down if any member is disabled (deactivate
    // disables all of them) or a deactivation of it is pending.
    if HTTP.iter().any(|m| m.is_disabled()) || pend & pool_bits() != 0 {
        m |= pool_bits();
    }
    m
}

/// What a verb on `node` takes down.
fn effect(node: &'static TaskNode, op: Verb) -> u32 {
    let b = if HTTP_POOL.member_index(node).is_some() {
        match op {
            // A stopped member is regrown by the pool's policy.
            Verb::Stop => 0,
            Verb::Deactivate => pool_bits(),
        }
    } else {
        bit(node)
    };
    match op {
        Verb::Deactivate => with_dependents(b),
        Verb::Stop => b,
    }
}

fn reachable(down: u32) -> bool {
    let up = |n: &TaskNode| down & bit(n) == 0;
    up(&ETH) && (up(&ADMIN) || (up(&NET) && down & pool_bits() == 0))
}

/// A verb that takes something down.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Deactivate,
    Stop,
}

/// The verdict on a command that takes something down.
pub enum Check {
    /// Leaves a listener: go ahead.
    Safe,
    /// Would cut the control plane; `mask` is what it takes down that is up.
    Cuts { mask: u32 },
}

pub fn check(node: &'static TaskNode, op: Verb) -> Check {
    let down = down_now();
    let eff = effect(node, op);
    if reachable(down | eff) {
        Check::Safe
    } else {
        Check::Cuts { mask: eff & !down }
    }
}

/// Record an accepted command that takes `node` down.
pub fn accepted_down(node: &'static TaskNode, op: Verb) {
    PENDING_AT_MS.store(Instant::now().as_millis() as u32, Ordering::Release);
    PENDING_DOWN.or(effect(node, op), Ordering::AcqRel);
    if op == Verb::Deactivate {
        PENDING_LATCH.or(bit(node), Ordering::AcqRel);
    }
}

/// Record an accepted activate (or restart) of `node`: it and its deps
/// come up.
pub fn accepted_up(node: &'static TaskNode) {
    let mut m = with_deps(bit(node));
    if HTTP_POOL.member_index(node).is_some() {
        m |= pool_bits();
    }
    PENDING_DOWN.and(!m, Ordering::AcqRel);
    PENDING_LATCH.and(!m, Ordering::AcqRel);
}

/// The driver applied a deactivate of the node named `name` (from the
/// event log's `ControlApplied`): the node flags now tell.
pub fn applied_deactivate(name: &str) {
    if let Some(n) = GRAPH.nodes.iter().flatten().find(|n| n.spec().name == name) {
        PENDING_DOWN.and(!effect(n, Verb::Deactivate), Ordering::AcqRel);
        PENDING_LATCH.and(!bit(n), Ordering::AcqRel);
    }
}

/// A stop of `node` returned (acked or timed out): the flags now tell.
pub fn stop_done(node: &'static TaskNode) {
    PENDING_DOWN.and(!effect(node, Verb::Stop), Ordering::AcqRel);
}

/// Whether `node` is held down: it or one it depends on (transitively) is
/// deactivated, or a deactivation of one is accepted and pending.
pub fn held_down(node: &TaskNode) -> bool {
    let mut disabled = pending(&PENDING_LATCH);
    for (i, n) in GRAPH.nodes.iter().enumerate() {
        if n.is_some_and(|n| n.is_disabled()) {
            disabled |= 1 << i;
        }
    }
    with_deps(bit(node)) & disabled != 0
}

/// Arm (or extend) the revert of a forced cut: `mask` comes back after
/// `ms` unless confirmed.
pub fn arm(mask: u32, ms: u64) {
    let deadline = Instant::now() + Duration::from_millis(ms);
    ARMED.lock(|a| {
        let mask = a.get().map_or(0, |x| x.mask) | mask;
        a.set(Some(Armed { deadline, mask }));
    });
    CHANGED.signal(());
    log::push("guard", "", "armed", (ms / 1000) as u32);
}

/// Confirm the pending forced change: `false` if none was pending.
pub fn confirm() -> bool {
    let was = ARMED.lock(|a| a.take()).is_some();
    if was {
        CHANGED.signal(());
        log::push("guard", "", "confirmed", 0);
    }
    was
}

/// Milliseconds until a pending revert, if one is armed.
pub fn reverts_in_ms() -> Option<u64> {
    ARMED.lock(|a| a.get()).map(|x| {
        x.deadline
            .checked_duration_since(Instant::now())
            .map_or(0, |d| d.as_millis())
    })
}

/// The revert task: waits for an armed deadline, then activates every node
/// the forced commands took down (a pool member brings the pool back).
#[embassy_executor::task]
pub async fn reverter() {
    loop {
        let Some(armed) = ARMED.lock(|a| a.get()) else {
            CHANGED.wait().await;
            continue;
        };
        match select(Timer::at(armed.deadline), CHANGED.wait()).await {
            Either::Second(()) => continue,
            Either::First(()) => {}
        }
        // Still the same arming (not confirmed or re-armed meanwhile)?
        let taken = ARMED.lock(|a| match a.get() {
            Some(x) if x.deadline == armed.deadline => a.take(),
            _ => None,
        });
        let Some(armed) = taken else { continue };
        REVERTS.add(1, Ordering::Relaxed);
        log::push("guard", "", "reverting", 0);
        let mut pool_done = false;
        for (i, n) in GRAPH.nodes.iter().enumerate() {
            let Some(n) = n else { continue };
            if armed.mask & (1 << i) == 0 {
                continue;
            }
            if HTTP_POOL.member_index(n).is_some() {
                if pool_done {
                    continue;
                }
                pool_done = true;
            }
            // The mailbox is 4 deep: retry while full, boundedly.
            let mut sent = false;
            for _ in 0..100 {
                if try_request_control(n, ControlOp::Activate).is_ok() {
                    sent = true;
                    break;
                }
                Timer::after_millis(50).await;
            }
            if sent {
                accepted_up(n);
                log::push("guard", n.spec().name, "reverted", 0);
            } else {
                log::push("guard", n.spec().name, "revert_failed", 0);
            }
        }
        // Every activation is queued: a command sent from here on comes
        // after them.
        log::push("guard", "", "revert_done", 0);
    }
}
