use embassy_executor::Spawner;
use embassy_supervisor::{supervisor_graph, TaskNode};
#[embassy_executor::task]
async fn t(_n: &'static TaskNode) {}

supervisor_graph! {
    node A = Terminate, deps: [], spawn: |s: Spawner| {
        let token = t(&A)?;
        s.spawn(token);
        7u8
    };
}

fn main() {}
