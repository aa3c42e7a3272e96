use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
#[embassy_executor::task]
async fn t(_n: &'static TaskNode) {}

async fn forever(_n: &'static TaskNode) -> ! {
    core::future::pending().await
}

supervisor_graph! {
    node A = Terminate, deps: [], task: forever, exit: u8;
}

fn main() {}
