use embassy_supervisor::{TaskNode, supervisor_graph};

async fn work(node: &'static TaskNode) -> Result<(), ()> {
    node.wait_shutdown().await;
    node.ack_dropped();
    Ok(())
}

supervisor_graph! {
    node SENSOR = Pause, task: work, exit: Result<(), ()>, restart: on_failure;
}

fn main() {}
