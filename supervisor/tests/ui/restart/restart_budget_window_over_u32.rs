use embassy_supervisor::{TaskNode, supervisor_graph};

async fn work(node: &'static TaskNode) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

supervisor_graph! {
    node SENSOR = Terminate, task: work, restart: always, restart_budget: 3 in 5_000_000_000;
}

fn main() {}
