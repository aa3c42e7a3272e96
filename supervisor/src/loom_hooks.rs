//! The loom models' way in (`tests/loom_*.rs`, built only under
//! `cfg(loom)`): each item calls the runtime's own step, nothing is
//! re-implemented here, so a model exercises the code a device runs.
//! `docs/runtime.md`, "The protocol under loom", says which model uses which.

use core::future::Future;

use embassy_executor::Spawner;

use crate::{NodeFault, ShutdownTimeout, Supervisor, TaskNode, notify};

/// Build the crate's statics for this execution (the notifier, its
/// counters) before the model spawns its threads: see
/// `notify::build_statics`.
pub fn build_statics() {
    notify::build_statics();
    crate::sync::task::build_statics();
}

/// A bring-up's atomic step (`TaskNode::try_begin_activation`): `true` if
/// it marked the node up.
pub fn try_begin_activation(node: &TaskNode) -> bool {
    node.try_begin_activation(None).is_ok()
}

/// A stop's request (`TaskNode::request_shutdown`), without its ack wait.
pub fn request_shutdown(node: &'static TaskNode) {
    node.request_shutdown();
}

/// A stop and its ack wait, as `stop_node` and the waves issue them
/// (`supervisor::stop`: request, two passes, then the observer sleep).
pub fn stop(node: &'static TaskNode) -> impl Future<Output = Result<(), ShutdownTimeout>> {
    crate::supervisor::stop(node)
}

/// The node was asked to stop and has not acked.
pub fn is_stopping(node: &TaskNode) -> bool {
    node.state().is_stopping()
}

/// An observer's wait (`notify::wait_for`) until `ready` holds.
pub async fn wait_for(mut ready: impl FnMut() -> bool) {
    notify::wait_for(|| ready().then_some(())).await
}

/// A driver's wait for a change after `epoch` (`notify::ChangeWait`, as
/// `run()` and `run_pools` wait: the driver's waker slot, or the
/// observers if another driver holds it), without a deadline.
pub fn change_wait(epoch: u32) -> impl Future<Output = ()> {
    notify::ChangeWait::new(epoch, None)
}

/// The change counter a driver notes before its pass (`notify::epoch`).
pub fn epoch() -> u32 {
    notify::epoch()
}

/// A change: wake the observers (`notify::changed`, with its fast path).
pub fn changed() {
    notify::changed();
}

/// The pool pass's move of its driver's snapshot past the change its own
/// stop request made (`notify::past_own_change`).
pub fn past_own_change(since: &mut u32) {
    notify::past_own_change(since);
}

/// The era a bring-up notes when it starts (`Supervisor::era`).
pub fn era<const N: usize, const USES: u8>(sup: &Supervisor<N, USES>) -> u32 {
    sup.era()
}

/// A bring-up's synchronous part after it noted `era`
/// (`Supervisor::bring_up_now`: the atomic step, the era fence, the spawn).
pub fn bring_up_now<const N: usize, const USES: u8>(
    sup: &Supervisor<N, USES>,
    node: &'static TaskNode,
    spawner: Spawner,
    era: u32,
) -> Option<Result<(), NodeFault>> {
    sup.bring_up_now(node, spawner, era)
}

/// A stop wave over the whole graph, as `teardown` runs it but without
/// `halt` (whose era fence refuses every bring-up while it runs, model 2):
/// the wave alone, as `restart` runs it over a node and its dependents.
pub fn stop_wave<const N: usize, const USES: u8>(
    sup: &Supervisor<N, USES>,
) -> impl Future<Output = Result<(), NodeFault>> + '_ {
    sup.stop_wave_alone()
}
