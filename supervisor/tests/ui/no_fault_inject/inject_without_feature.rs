// Without feature `fault-inject` there is no injection API at all: no
// `Fault`, no `inject`, no `clear_fault` (and no field or wrapper behind them).
use embassy_supervisor::{Fault, Mode, NodeSpec, TaskNode};

static NODE: TaskNode = TaskNode::new(&NodeSpec::new("NODE", Mode::Terminate));

fn main() {
    NODE.inject(Fault::Crash);
    NODE.clear_fault();
}
