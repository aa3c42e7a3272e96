// A pool's `policy:` initialises a `static`, so it must be a const
// expression: a `const fn` call (like `DeferredShrink::new`), not a plain fn.
use embassy_supervisor::{DeferredShrink, TaskNode, supervisor_graph};
use embassy_time::Duration;

async fn w(_n: &'static TaskNode) {}

fn make_policy() -> DeferredShrink {
    DeferredShrink::new(Duration::from_secs(1))
}

supervisor_graph! {
    pool P = [Terminate, OnDemand], deps: [], task: w,
        policy: DeferredShrink = make_policy(), min: 1, max: 2;
}

fn main() {}
