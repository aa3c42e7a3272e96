// Glue of this repository's crate: the verbs as `-> bool` and the worker.
use cortex_m_rt::entry;
use embassy_executor::Spawner;
#[allow(unused_imports)] // DeferredShrink and the time types: only some workloads use them
use embassy_supervisor::{DeferredShrink, Supervisor, TaskNode};
use embassy_supervisor_firmware as fw;
#[allow(unused_imports)]
use embassy_time::{Duration, Instant, Timer};

const SIDE: &str = "ours";
// Typed with what the graph uses and its width: the workloads declare no
// gates and no `Pause` node, so none of that code is linked, and only the
// whole-graph stop the graph's width needs (`uses`). Feature `every-use`:
// `Supervisor<N>` (the saving's reference).
#[cfg(not(feature = "every-use"))]
static SUP: Supervisor<N, { GRAPH_USES | GRAPH_WIDTH }> = Supervisor::with_uses(&GRAPH);
#[cfg(feature = "every-use")]
static SUP: Supervisor<N> = Supervisor::new(&GRAPH);

// The generated `task:` shell records the exit (`mark_exited`) when this
// returns, so the worker only acks its stop.
async fn work(node: &'static TaskNode) {
    let _ = node.run_cancellable_acked(core::future::pending::<()>()).await;
}
async fn v_start(s: Spawner) -> bool { SUP.start(s).await.is_ok() }
async fn v_teardown() -> bool { SUP.teardown().await.is_ok() }
async fn v_respawn(s: Spawner) -> bool { SUP.respawn_terminate(s).await.is_ok() }
async fn v_deactivate(n: &'static TaskNode, _: Spawner) -> bool { SUP.deactivate(n).await.is_ok() }
async fn v_activate(n: &'static TaskNode, s: Spawner) -> bool { SUP.activate(n, s).await.is_ok() }
async fn v_start_node(n: &'static TaskNode, s: Spawner) -> bool { SUP.start_node(n, s).await.is_ok() }
#[embassy_executor::task]
async fn pools(s: Spawner) { let _ = SUP.run_pools(s).await; }
// The driver an application ships (`common/fprun.rs`): `run()`, and
// commands through the control mailbox.
#[allow(dead_code)]
async fn v_drive(s: Spawner) { let _ = SUP.run(s).await; }
#[allow(dead_code)]
async fn ctl_deactivate(n: &'static TaskNode) { embassy_supervisor::request_control(n, embassy_supervisor::ControlOp::Deactivate).await }
#[allow(dead_code)]
async fn ctl_activate(n: &'static TaskNode) { embassy_supervisor::request_control(n, embassy_supervisor::ControlOp::Activate).await }
