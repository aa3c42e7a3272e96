//! Feature family `trace`: polls are attributed to named nodes across
//! respawns in O(1); executors report where their time went; the in-flight
//! poll names a stalled node; `metadata-names` stamps task names; and under
//! `trace-nested` a preempting poll is credited back to the poll it
//! interrupted. The clock is the mock driver's, moved by the test inside
//! polls, so every duration below is exact.
//!
//! Run with `--features macros,trace-hooks,trace-names --test trace`, and
//! again with `trace-nested`: with `trace` on, every binary that links the
//! executor needs the hook symbols, which only this test binary defines.
#![cfg(all(feature = "macros", feature = "trace-hooks"))]
mod common;

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::trace::{self, ExecutorStats};
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_time::Duration;

/// The executor that runs the test: the first one the hooks saw.
const EXEC: usize = 0;

/// One poll that takes 7 ticks, then serve until stopped.
async fn hog(node: &'static TaskNode) {
    #[cfg(feature = "metadata-names")]
    assert_eq!(
        embassy_executor::Metadata::for_current_task().await.name(),
        Some("HOG"),
        "metadata-names stamps the node name on its task"
    );
    common::advance(Duration::from_ticks(7));
    let now = trace::current_task(EXEC).expect("a poll is in flight");
    assert!(
        core::ptr::eq(now.node.unwrap(), &HOG),
        "the in-flight poll is HOG's"
    );
    assert_eq!(now.ticks, 7);
    assert!(
        trace::stalled_task(EXEC, 6).is_some(),
        "7 ticks > 6: stalled"
    );
    assert!(trace::stalled_task(EXEC, 7).is_none(), "7 ticks is not > 7");
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

async fn serve(node: &'static TaskNode) {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

embassy_supervisor::supervisor_graph! {
    node HOG = Terminate, deps: [], task: hog;
    node CALM = Terminate, deps: [HOG], task: serve;
}
static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

// A hand-built graph of many nodes, each in its own task storage, to show
// attribution does not depend on the graph's size.
const MANY: usize = 40;

#[embassy_executor::task(pool_size = MANY)]
async fn many_worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

fn spawn_many(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let token = many_worker(node)?;
    node.bind(&token);
    s.spawn(token);
    Ok(())
}

static MANY_SPECS: [NodeSpec; MANY] = {
    let mut s = [const { NodeSpec::new("M", Mode::Terminate) }; MANY];
    let mut i = 0;
    while i < MANY {
        s[i] = NodeSpec::new("M", Mode::Terminate)
            .with_spawn(spawn_many)
            .at(i as u8);
        i += 1;
    }
    s
};
static MANY_NODES: [TaskNode; MANY] = {
    let mut n = [const { TaskNode::new(&MANY_SPECS[0]) }; MANY];
    let mut i = 0;
    while i < MANY {
        core::mem::forget(core::mem::replace(&mut n[i], TaskNode::new(&MANY_SPECS[i])));
        i += 1;
    }
    n
};
static MANY_GRAPH: Graph<MANY> = {
    let mut slots = [None; MANY];
    let mut i = 0;
    while i < MANY {
        slots[i] = Some(&MANY_NODES[i]);
        i += 1;
    }
    Graph::new(slots, [&[]; MANY])
};
static MANY_SUP: Supervisor<MANY> = Supervisor::new(&MANY_GRAPH);

static SPARE: [Graph<1>; 3] = [const { Graph::new([None], [&[]]) }; 3];

fn stats() -> ExecutorStats {
    trace::executor_stats(EXEC).expect("the test's executor is traced")
}

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    common::settle().await;

    // Attribution: each node's polls are its own.
    let hog = HOG.trace_stats();
    assert!(hog.polls >= 1);
    assert_eq!(hog.max_poll_ticks, 7, "HOG's one long poll");
    assert_eq!(hog.exec_ticks, 7, "every other HOG poll took no time");
    let calm = CALM.trace_stats();
    assert!(calm.polls >= 1 && calm.exec_ticks == 0 && calm.max_poll_ticks == 0);
    let hog_id = HOG.task_id().expect("the glue bound HOG's task");
    assert!(core::ptr::eq(trace::node_of(hog_id).unwrap(), &HOG));
    assert!(core::ptr::eq(
        trace::node_of(CALM.task_id().unwrap()).unwrap(),
        &CALM
    ));
    assert!(
        trace::node_of(0x1234_5670).is_none(),
        "an unknown task has no node"
    );

    // The executor's decomposition: HOG's 7 ticks are supervised poll time.
    let s = stats();
    assert!(s.polls >= 3 && s.passes >= 1);
    assert_eq!(s.supervised_ticks, 7);
    assert_eq!(s.in_poll_ticks, 7, "no other poll took time");
    assert_eq!(s.unsupervised_ticks(), 0);
    assert_eq!(
        s.overhead_ticks(),
        s.elapsed_ticks - s.idle_ticks - s.in_poll_ticks
    );

    // A `task:` shell stays resident across activations: after the stop its
    // task still exists, parked, and its id still names HOG.
    SUP.teardown().await.unwrap();
    common::settle().await;
    assert!(core::ptr::eq(trace::node_of(hog_id).unwrap(), &HOG));
    // Across a respawn the same task runs HOG again and its figures add up.
    SUP.respawn_terminate(spawner).await.unwrap();
    common::settle().await;
    let again = HOG.trace_stats();
    assert_eq!(HOG.task_id(), Some(hog_id), "woken in place, not respawned");
    assert!(again.polls > hog.polls);
    assert_eq!(again.exec_ticks, 14, "two instances, one 7-tick poll each");
    assert_eq!(again.max_poll_ticks, 7);
    assert_eq!(stats().supervised_ticks, 14);

    // Pitfall 13: attribution is O(1). Forty more supervised tasks: every one
    // is named, and no lookup (hit or miss) reads more than MAX_PROBES
    // entries of the table.
    MANY_SUP.start(spawner).await.unwrap();
    common::settle().await;
    for n in &MANY_NODES {
        let id = n.task_id().expect("spawn_many binds");
        assert!(core::ptr::eq(trace::node_of(id).unwrap(), n));
        assert!(
            n.trace_stats().polls >= 1,
            "its first poll was charged to it"
        );
        assert!(trace::__lookup_cost(id) <= trace::MAX_PROBES);
    }
    assert!(trace::__lookup_cost(0x1234_5670) <= trace::MAX_PROBES);
    assert_eq!(trace::untracked(), 0);

    // Up to MAX_GRAPHS graphs are named; the next is refused, not dropped silently.
    assert!(
        trace::register_graph(&GRAPH),
        "already registered: idempotent"
    );
    assert!(trace::register_graph(&SPARE[0]) && trace::register_graph(&SPARE[1]));
    assert!(
        !trace::register_graph(&SPARE[2]),
        "a fifth graph is refused"
    );

    nested();
    common::pass();
}

/// Two fake executors on this core: B's 4-tick poll preempts A's poll.
fn nested() {
    let (a, b) = (0xA000_0000, 0xB000_0000);
    trace::on_poll_start(a);
    trace::on_task_exec_begin(a, 0xA1);
    common::advance(Duration::from_ticks(10));
    trace::on_poll_start(b);
    trace::on_task_exec_begin(b, 0xB1);
    common::advance(Duration::from_ticks(4));
    trace::on_task_exec_end(b, 0xB1);
    trace::on_executor_idle(b);
    common::advance(Duration::from_ticks(6));
    trace::on_task_exec_end(a, 0xA1);
    trace::on_executor_idle(a);
    let (sa, sb) = (
        trace::executor_stats(1).unwrap(),
        trace::executor_stats(2).unwrap(),
    );
    assert_eq!((sa.executor_id, sb.executor_id), (a, b));
    assert_eq!(sb.in_poll_ticks, 4);
    let expected = if cfg!(feature = "trace-nested") {
        16
    } else {
        20
    };
    assert_eq!(
        sa.in_poll_ticks, expected,
        "A's poll, less B's under trace-nested"
    );
    assert_eq!((sa.polls, sa.passes), (1, 1));
    assert_eq!(sa.unsupervised_ticks(), expected, "fake tasks are no nodes");

    // An end without a begin (hooks installed mid-poll) charges nothing.
    let c = 0xC000_0000;
    trace::on_task_exec_end(c, 0xC1);
    let sc = trace::executor_stats(3).unwrap();
    assert_eq!((sc.executor_id, sc.polls, sc.in_poll_ticks), (c, 0, 0));
    // A fifth executor is counted, not tracked.
    assert_eq!(trace::untracked_executors(), 0);
    trace::on_poll_start(0xD000_0000);
    assert_eq!(trace::untracked_executors(), 1);
    assert!(trace::executor_stats(4).is_none());
}

#[test]
fn polls_are_attributed_to_named_nodes_in_constant_time() {
    let mut watched: Vec<&'static TaskNode> = vec![&HOG, &CALM];
    watched.extend(MANY_NODES.iter());
    let watched: &'static [&'static TaskNode] = Vec::leak(watched);
    common::run(watched, |s| s.spawn(driver(s).unwrap()));
}
