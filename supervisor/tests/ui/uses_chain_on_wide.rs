use embassy_supervisor::{supervisor_graph, uses, Supervisor, TaskNode};
async fn w(_n: &'static TaskNode) {}

supervisor_graph! {
    node A = Terminate, task: w;
    node B = Terminate, task: w;
}

// A and B have no order between them: the graph is wider than a chain,
// and a supervisor typed with a chain's bits would stop them one at a
// time: const evaluation refuses it.
static SUP: Supervisor<2, { uses::CHAIN }> = Supervisor::with_uses(&GRAPH);

fn main() {
    let _ = &SUP;
    let _ = (GRAPH_USES, GRAPH_WIDTH);
}
