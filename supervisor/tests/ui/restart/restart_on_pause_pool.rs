use embassy_supervisor::{TaskNode, supervisor_graph};

async fn work(node: &'static TaskNode) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

supervisor_graph! {
    pool WORKERS = [Terminate, Pause], deps: [], task: work, restart: always,
        policy: embassy_supervisor::DeferredShrink::new(embassy_time::Duration::from_secs(1)), min: 1, max: 2;
}

fn main() {}
