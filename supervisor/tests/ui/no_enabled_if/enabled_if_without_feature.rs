use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
fn lora_on() -> bool {
    true
}

supervisor_graph! {
    node LORA = Terminate, task: w, enabled_if: lora_on;
}

fn main() {}
