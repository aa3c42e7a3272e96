use embassy_supervisor::{TaskNode, supervisor_graph};

async fn modem(node: &'static TaskNode) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

async fn app(node: &'static TaskNode, _uart: &mut u32, _handle: u32) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

// A lend slot belongs to the node that takes it; and an entry is given once.
supervisor_graph! {
    node MODEM = Terminate, deps: [], task: modem, provides: [UART, HANDLE, HANDLE];
    node APP = Terminate, deps: [MODEM], task: app, resources: [UART: u32, HANDLE: shared u32];
}

fn main() {}
