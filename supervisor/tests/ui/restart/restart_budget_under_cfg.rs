use embassy_supervisor::{TaskNode, supervisor_graph};

async fn work(node: &'static TaskNode) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

supervisor_graph! {
    #[cfg(feature = "field")]
    restart_budget 3 in 1000;
    node SENSOR = Terminate, task: work, restart: always;
}

fn main() {}
