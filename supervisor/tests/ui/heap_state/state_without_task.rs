use embassy_supervisor::{supervisor_graph, TaskNode};
#[embassy_executor::task]
async fn t(_n: &'static TaskNode) {}

supervisor_graph! {
    node A = Terminate, deps: [], spawn: t, state: u32 = 0;
}

fn main() {}
