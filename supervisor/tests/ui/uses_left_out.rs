use embassy_supervisor::{supervisor_graph, Supervisor, TaskNode};
async fn w(_n: &'static TaskNode) {}

supervisor_graph! {
    node A = Pause, task: w;
}

// The graph has a `Pause` node; a supervisor typed without `PAUSE` would
// not resume it: const evaluation refuses it.
static SUP: Supervisor<1, 0> = Supervisor::with_uses(&GRAPH);

fn main() {
    let _ = &SUP;
    let _ = GRAPH_USES;
}
