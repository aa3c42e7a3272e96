use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
struct Nothing;
static SAMPLE: Nothing = Nothing;

supervisor_graph! {
    node SENSOR = Terminate, task: w, writes: [SAMPLE];
    node REPORT = Terminate, task: w, reads: [SAMPLE];
}

fn main() {}
