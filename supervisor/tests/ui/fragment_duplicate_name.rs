use embassy_supervisor::TaskNode;
async fn w(_n: &'static TaskNode) {}

embassy_supervisor::supervisor_fragment! {
    name: A_FRAG;
    node A = Terminate, deps: [], task: $crate::w;
}

embassy_supervisor::compose_graph! {
    fragments: [A_FRAG],
    graph: {
        node A = Terminate, deps: [], task: w;
    }
}

fn main() {}
