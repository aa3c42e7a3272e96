use embassy_supervisor::{TaskNode, supervisor_graph};

pub enum Link {
    Closed,
}

async fn work(node: &'static TaskNode) -> Link {
    node.wait_shutdown().await;
    node.ack_dropped();
    Link::Closed
}

supervisor_graph! {
    node SENSOR = Terminate, task: work, exit: Link, restart: on_failure;
}

fn main() {}
