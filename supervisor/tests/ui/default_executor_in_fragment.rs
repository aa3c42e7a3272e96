use embassy_supervisor::TaskNode;
async fn w(_n: &'static TaskNode) {}

embassy_supervisor::supervisor_fragment! {
    name: NET_FRAG;
    default executor THREAD;
    node NET = Terminate, task: $crate::w;
}

embassy_supervisor::compose_graph! {
    fragments: [NET_FRAG],
    graph: {
        node APP = Terminate, deps: [NET], task: w;
    }
}

fn main() {}
