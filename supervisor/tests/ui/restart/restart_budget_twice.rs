use embassy_supervisor::{TaskNode, supervisor_graph};

async fn work(node: &'static TaskNode) -> Result<(), ()> {
    node.wait_shutdown().await;
    node.ack_dropped();
    Ok(())
}

supervisor_graph! {
    restart_budget 3 in 1000;
    restart_budget 5 in 1000;
    node SENSOR = Terminate, task: work, restart: always;
}

fn main() {}
