use embassy_supervisor::{TaskNode, supervisor_graph};

async fn work(node: &'static TaskNode) -> Result<(), ()> {
    node.wait_shutdown().await;
    node.ack_dropped();
    Ok(())
}

supervisor_graph! {
    node SENSOR = Terminate, task: work, restart: always, backoff: 500..100;
}

fn main() {}
