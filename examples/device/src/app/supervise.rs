//! The supervisor's driver task. Its polls are timed here (a thin wrapper
//! around `SUP.run`), so the dashboard can show the supervisor's own CPU
//! apart from the nodes'. A `NodeFault` (a missed ack during a pool shrink or
//! a Replace, a control command that could not bring a node up) is logged
//! with its node and kind, and the driver restarts: a device keeps serving.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use embassy_executor::{SendSpawner, Spawner};
use embassy_supervisor::{FaultKind, TaskNode};
use embassy_sync::once_lock::OnceLock;
use embassy_time::Instant;
use portable_atomic::{AtomicU32, Ordering};

use super::graph::SUP;
use super::log;

static CPU_TICKS: AtomicU32 = AtomicU32::new(0);
static POLLS: AtomicU32 = AtomicU32::new(0);
static RESTARTS: AtomicU32 = AtomicU32::new(0);
static SPAWNER: OnceLock<SendSpawner> = OnceLock::new();

/// (CPU ticks spent inside the supervisor's own polls, polls, restarts).
pub fn stats() -> (u32, u32, u32) {
    (
        CPU_TICKS.load(Ordering::Relaxed),
        POLLS.load(Ordering::Relaxed),
        RESTARTS.load(Ordering::Relaxed),
    )
}

/// The thread executor's spawner, for helpers the HTTP handlers start.
pub fn spawner() -> SendSpawner {
    // Set before the supervisor starts anything that could call this.
    *SPAWNER.try_get().expect("set in supervisor()")
}

/// Times each poll of the pinned future it wraps.
struct Metered<'a, F>(Pin<&'a mut F>);

impl<F: Future> Future for Metered<'_, F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let t0 = Instant::now();
        let r = self.0.as_mut().poll(cx);
        CPU_TICKS.add(t0.elapsed().as_ticks() as u32, Ordering::Relaxed);
        POLLS.add(1, Ordering::Relaxed);
        r
    }
}

#[embassy_executor::task]
pub async fn supervisor(spawner: Spawner) {
    let _ = SPAWNER.init(spawner.make_send());
    loop {
        let run = core::pin::pin!(SUP.run(spawner));
        let err = Metered(run).await;
        RESTARTS.add(1, Ordering::Relaxed);
        log::push("run_error", err.node.spec().name, fault_name(err.kind), 0);
        // Give a wedged node the time its stop already has, then drive again.
        embassy_time::Timer::after_millis(100).await;
    }
}

/// The event log's word for a fault's kind.
fn fault_name(kind: FaultKind) -> &'static str {
    match kind {
        FaultKind::AckMissed => "shutdown_timeout",
        FaultKind::ResourceEmpty { .. } => "resource_empty",
        FaultKind::ExecutorUnpublished { .. } => "executor_unpublished",
        FaultKind::DepNotReady { .. } => "dep_not_ready",
        FaultKind::SpawnBusy => "spawn_busy",
        FaultKind::Refused(_) => "refused",
        _ => "fault",
    }
}

/// Both stop helpers are busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelpersBusy;

/// Stop `node` from a helper task (for a worker asked to stop itself);
/// `Err` if both helpers are busy.
pub fn stop_later(node: &'static TaskNode) -> Result<(), HelpersBusy> {
    let token = stopper(node).map_err(|_| HelpersBusy)?;
    spawner().spawn(token);
    Ok(())
}

#[embassy_executor::task(pool_size = 2)]
async fn stopper(node: &'static TaskNode) {
    let r = SUP.stop_node(node).await;
    super::guard::stop_done(node);
    match r {
        Ok(()) => log::push("verb", node.spec().name, "stopped", 0),
        Err(e) => log::push("verb", e.node.spec().name, "shutdown_timeout", 0),
    }
}

/// Reboot the board after `REBOOT_DELAY_MS` (so the answer to the request
/// that asked gets out first); `Err` if a reboot is already on its way.
pub fn reboot_later() -> Result<(), HelpersBusy> {
    let token = rebooter().map_err(|_| HelpersBusy)?;
    spawner().spawn(token);
    Ok(())
}

/// How long a reboot waits for its answer to be sent.
pub const REBOOT_DELAY_MS: u64 = 300;

#[embassy_executor::task]
async fn rebooter() {
    log::push("reboot", "", "requested", 0);
    embassy_time::Timer::after_millis(REBOOT_DELAY_MS).await;
    crate::board::reboot()
}
