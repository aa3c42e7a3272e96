//! `ElasticPool::member_index` and `Graph::index_of`: O(1) lookups that never
//! answer for a node that is not a member.
#![cfg(feature = "pool")]
use embassy_supervisor::{DeferredShrink, ElasticPool, Graph, Mode, NodeSpec, Pool, TaskNode};
use embassy_time::Duration;

static MEMBERS: [TaskNode; 3] = [
    TaskNode::new(&NodeSpec::new("M[0]", Mode::Terminate).at(1).in_pool(0)),
    TaskNode::new(&NodeSpec::new("M[1]", Mode::OnDemand).at(2).in_pool(0)),
    TaskNode::new(&NodeSpec::new("M[2]", Mode::OnDemand).at(3).in_pool(0)),
];
static OTHER: [TaskNode; 2] = [
    TaskNode::new(&NodeSpec::new("O[0]", Mode::OnDemand)),
    TaskNode::new(&NodeSpec::new("O[1]", Mode::OnDemand)),
];
static ROOT: TaskNode = TaskNode::new(&NodeSpec::new("ROOT", Mode::Terminate).at(0));
static STRAY: TaskNode = TaskNode::new(&NodeSpec::new("STRAY", Mode::Terminate).at(1)); // wrong hint on purpose
static POOL: ElasticPool<DeferredShrink> = ElasticPool::new(
    &MEMBERS,
    1,
    1,
    3,
    DeferredShrink::new(Duration::from_secs(1)),
);
static POOLS: [&dyn Pool; 1] = [&POOL];
static GRAPH: Graph<4> = Graph::new(
    [
        Some(&ROOT),
        Some(&MEMBERS[0]),
        Some(&MEMBERS[1]),
        Some(&MEMBERS[2]),
    ],
    [&[], &[0], &[0], &[0]],
)
.with_pools(&POOLS);

#[test]
fn member_index_finds_members_only() {
    for (i, m) in MEMBERS.iter().enumerate() {
        assert_eq!(POOL.member_index(m), Some(i));
    }
    assert_eq!(POOL.member_index(&ROOT), None);
    assert_eq!(POOL.member_index(&OTHER[0]), None);
    assert_eq!(POOL.member_index(&OTHER[1]), None);
    assert_eq!(POOL.slots(), 1..4);
    assert_eq!(POOL.bounds(), (1, 3));
}

#[test]
fn index_of_uses_the_hint_and_rejects_strangers() {
    assert_eq!(GRAPH.index_of(&ROOT), Some(0));
    assert_eq!(GRAPH.index_of(&MEMBERS[2]), Some(3));
    assert_eq!(
        GRAPH.index_of(&STRAY),
        None,
        "a hint pointing at another node is not membership"
    );
    assert_eq!(GRAPH.order, [0, 1, 2, 3]);
}

#[test]
fn hand_built_pool_bounds_are_clamped() {
    static LOOSE: ElasticPool<DeferredShrink> =
        ElasticPool::new(&OTHER, 0, 5, 9, DeferredShrink::new(Duration::from_secs(1)));
    assert_eq!(
        LOOSE.bounds(),
        (2, 2),
        "max clamps to the member count, min to max"
    );
}

#[test]
fn task_node_size() {
    println!(
        "size_of::<TaskNode>() on this host = {} bytes",
        core::mem::size_of::<TaskNode>()
    );
    // 64 bytes on a 64-bit host, 8 more with `liveness` (the heartbeat word, padded).
    assert!(core::mem::size_of::<TaskNode>() <= 72);
}
