// Glue of the published embassy-supervisor 0.3.4: the verbs as `-> bool` and
// the worker (0.3.4 has no cancellable runner: select on the stop, then ack).
// Its activate/deactivate are reached through `apply_control`.
use cortex_m_rt::entry;
use embassy_executor::Spawner;
#[allow(unused_imports)] // DeferredShrink and the time types: only some workloads use them
use embassy_supervisor::{ControlCommand, ControlOp, DeferredShrink, Supervisor, TaskNode};
use embassy_supervisor_firmware as fw;
#[allow(unused_imports)]
use embassy_time::{Duration, Instant, Timer};

const SIDE: &str = "0.3.4";
static SUP: Supervisor<N> = Supervisor::new(&GRAPH);

async fn work(node: &'static TaskNode) {
    embassy_futures::select::select(node.wait_shutdown(), core::future::pending::<()>()).await;
    node.ack_dropped();
}
async fn v_start(s: Spawner) -> bool { SUP.start(s).await.is_ok() }
async fn v_teardown() -> bool { SUP.teardown().await; true }
async fn v_respawn(s: Spawner) -> bool { SUP.respawn_terminate(s).await.is_ok() }
async fn v_deactivate(node: &'static TaskNode, s: Spawner) -> bool {
    SUP.apply_control(ControlCommand { node, op: ControlOp::Deactivate }, s).await;
    true
}
async fn v_activate(node: &'static TaskNode, s: Spawner) -> bool {
    SUP.apply_control(ControlCommand { node, op: ControlOp::Activate }, s).await;
    true
}
async fn v_start_node(n: &'static TaskNode, s: Spawner) -> bool { SUP.start_node(n, s).await.is_ok() }
#[embassy_executor::task]
async fn pools(s: Spawner) { SUP.run_pools(s).await }
// The driver an application ships (`common/fprun.rs`): 0.3.4 has no
// `run()`; its README's loop starts the graph, then drives the pools
// beside the control mailbox.
#[allow(dead_code)]
async fn v_drive(s: Spawner) {
    if SUP.start(s).await.is_err() {
        return;
    }
    let control = async {
        loop {
            let cmd = embassy_supervisor::wait_control().await;
            SUP.apply_control(cmd, s).await;
        }
    };
    embassy_futures::select::select(SUP.run_pools(s), control).await;
}
#[allow(dead_code)]
async fn ctl_deactivate(n: &'static TaskNode) { embassy_supervisor::request_control(n, ControlOp::Deactivate) }
#[allow(dead_code)]
async fn ctl_activate(n: &'static TaskNode) { embassy_supervisor::request_control(n, ControlOp::Activate) }
