use embassy_supervisor::{TaskNode, supervisor_graph};

async fn work(node: &'static TaskNode) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

supervisor_graph! {
    node MODEM = Terminate, deps: [], task: work, ack_timeout: 0;
}

fn main() {}
