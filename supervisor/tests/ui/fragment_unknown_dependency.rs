use embassy_supervisor::TaskNode;
async fn w(_n: &'static TaskNode) {}

embassy_supervisor::supervisor_fragment! {
    name: B_FRAG;
    node B = Terminate, deps: [MISSING], task: $crate::w;
}

embassy_supervisor::compose_graph! {
    fragments: [B_FRAG],
}

fn main() {}
