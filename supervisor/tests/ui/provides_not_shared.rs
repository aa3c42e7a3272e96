use embassy_supervisor::{TaskNode, supervisor_graph};

async fn modem(node: &'static TaskNode) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

async fn app(node: &'static TaskNode, _handle: u32) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

// `HANDEL` is a typo: the graph's shared slot is `HANDLE`.
supervisor_graph! {
    node MODEM = Terminate, deps: [], task: modem, provides: [HANDEL];
    node APP = Terminate, deps: [MODEM], task: app, resources: [HANDLE: shared u32];
}

fn main() {}
