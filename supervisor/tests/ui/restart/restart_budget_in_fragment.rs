use embassy_supervisor::TaskNode;

async fn work(node: &'static TaskNode) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

embassy_supervisor::supervisor_fragment! {
    name: NET_FRAG;
    restart_budget 3 in 1000;
    node NET = Terminate, task: $crate::work, restart: always;
}

embassy_supervisor::compose_graph! {
    fragments: [NET_FRAG],
    graph: {
        node APP = Terminate, deps: [NET], task: work;
    }
}

fn main() {}
