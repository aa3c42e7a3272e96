use embassy_supervisor::{TaskNode, supervisor_graph};

async fn work(node: &'static TaskNode) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

supervisor_graph! {
    node SENSOR = Terminate, task: work, backoff: 10..100;
}

fn main() {}
