// The local slot type carries an `unsafe impl Sync`: a crate that forbids
// unsafe code cannot declare a `local` entry (the spec's stated contract).
#![forbid(unsafe_code)]
use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode, _d: &mut u8) {}

supervisor_graph! {
    node A = Terminate, deps: [], task: w, resources: [D: local u8];
}

fn main() {}
