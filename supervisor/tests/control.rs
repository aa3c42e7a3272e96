//! Runtime control: `apply_control` routing and cascades (pool members expand
//! to the whole pool, foreign nodes are no-ops), `run` driving control, and a
//! control storm in which nothing is lost.
#![cfg(all(feature = "control", feature = "pool"))]
mod common;

use core::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{
    ControlCommand, ControlOp, DeferredShrink, ElasticPool, Graph, Mode, NodeSpec, Pool,
    Supervisor, TaskNode, request_control, try_request_control, wait_control,
};
use embassy_time::Duration;

// ---- graph 1: NET -> POOL[3] ; APP -> NET --------------------------------
static NET: TaskNode = TaskNode::new(
    &NodeSpec::new("NET", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static POOL: [TaskNode; 3] = [
    TaskNode::new(
        &NodeSpec::new("POOL[0]", Mode::Terminate)
            .with_spawn(common::spawn_worker)
            .at(1)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("POOL[1]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .at(2)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("POOL[2]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .at(3)
            .in_pool(0),
    ),
];
static APP: TaskNode = TaskNode::new(
    &NodeSpec::new("APP", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(4)
        .disabled(),
);
static POOL_POOL: ElasticPool<DeferredShrink> =
    ElasticPool::new(&POOL, 1, 1, 3, DeferredShrink::new(Duration::from_secs(1)));
static POOLS: [&dyn Pool; 1] = [&POOL_POOL];
static G1: Graph<5> = Graph::new(
    [
        Some(&NET),
        Some(&POOL[0]),
        Some(&POOL[1]),
        Some(&POOL[2]),
        Some(&APP),
    ],
    [&[], &[0], &[0], &[0], &[0]],
)
.with_pools(&POOLS);
static SUP1: Supervisor<5> = Supervisor::new(&G1);
static FOREIGN: TaskNode = TaskNode::new(&NodeSpec::new("FOREIGN", Mode::Terminate));

#[embassy_executor::task]
async fn cascades(spawner: Spawner) {
    SUP1.start(spawner).await.unwrap();
    assert!(
        NET.is_running() && POOL[0].is_running() && !APP.is_running(),
        "APP is disabled"
    );

    // Deactivating one pool member takes the whole pool down, atomically.
    let cmd = |node, op| ControlCommand { node, op };
    SUP1.apply_control(cmd(&POOL[2], ControlOp::Deactivate), spawner)
        .await
        .unwrap();
    assert!(POOL.iter().all(|m| m.is_disabled() && !m.is_running()));
    assert!(NET.is_running(), "dependencies are not pulled down");

    // Activating one member re-enables the whole pool; the floor respawns.
    SUP1.apply_control(cmd(&POOL[1], ControlOp::Activate), spawner)
        .await
        .unwrap();
    assert!(POOL.iter().all(|m| !m.is_disabled()));
    assert!(POOL[0].is_running(), "the Terminate floor is started");
    assert!(
        !POOL[1].is_running() && !POOL[2].is_running(),
        "OnDemand members are only enabled"
    );

    // A node of no graph of this supervisor: a no-op, not an error.
    SUP1.apply_control(cmd(&FOREIGN, ControlOp::Deactivate), spawner)
        .await
        .unwrap();
    assert!(!FOREIGN.is_disabled());

    // Deactivating the root cascades to every dependent, dependents first.
    SUP1.apply_control(cmd(&NET, ControlOp::Deactivate), spawner)
        .await
        .unwrap();
    // The target is latched; its dependents get the collateral hold.
    assert!(!NET.is_running() && NET.is_disabled());
    assert!(
        POOL.iter()
            .all(|m| !m.is_running() && m.is_held() && !m.is_disabled())
    );
    assert!(APP.is_held(), "APP (declared disabled) is held as well");

    // Activating a leaf pulls its dependencies up first. NET is enabled
    // again, so the hold it put on the pool is released: the Terminate floor
    // comes back, the OnDemand members are only enabled.
    SUP1.apply_control(cmd(&APP, ControlOp::Activate), spawner)
        .await
        .unwrap();
    assert!(NET.is_running() && APP.is_running());
    assert!(
        POOL.iter().all(|m| !m.is_held() && !m.is_disabled()),
        "the hold is released with NET's latch"
    );
    assert!(POOL[0].is_running() && !POOL[1].is_running() && !POOL[2].is_running());

    SUP1.teardown().await.unwrap();
    common::pass();
}

#[test]
fn apply_control_cascades_and_pool_expansion() {
    common::run(&[&NET, &APP, &POOL[0], &POOL[1], &POOL[2]], |s| {
        s.spawn(cascades(s).unwrap())
    });
}

// ---- graph 2: the storm: A <- B <- C --------------------------------------
static A: TaskNode = TaskNode::new(
    &NodeSpec::new("A", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static B: TaskNode = TaskNode::new(
    &NodeSpec::new("B", Mode::Pause)
        .with_spawn(spawn_b_pausable)
        .at(1),
);
static C: TaskNode = TaskNode::new(
    &NodeSpec::new("C", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(2),
);
static G2: Graph<3> = Graph::new([Some(&A), Some(&B), Some(&C)], [&[], &[0], &[1]]);
static SUP2: Supervisor<3> = Supervisor::new(&G2);
static STORM_NODES: [&TaskNode; 3] = [&A, &B, &C];

const SENDERS: u32 = 3;
const PER_SENDER: u32 = 2_000;
static ACCEPTED: AtomicU32 = AtomicU32::new(0);
static REFUSED: AtomicU32 = AtomicU32::new(0);
static APPLIED: AtomicU32 = AtomicU32::new(0);
static SENDERS_DONE: AtomicU32 = AtomicU32::new(0);
static LAST: AtomicU32 = AtomicU32::new(u32::MAX);

fn xorshift(s: &mut u32) -> u32 {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    *s
}

/// The Pause worker of B parks on stop and is resumed in place.
#[embassy_executor::task]
async fn pausable(node: &'static TaskNode) {
    loop {
        let _ = node.run_cancellable(core::future::pending::<()>()).await;
        node.ack_dropped();
        node.wait_resume().await;
    }
}

fn spawn_b_pausable(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(pausable(&B)?);
    Ok(())
}

#[embassy_executor::task(pool_size = 3)]
async fn sender(mut seed: u32) {
    for _ in 0..PER_SENDER {
        let r = xorshift(&mut seed);
        let node = STORM_NODES[(r % 3) as usize];
        let op = if r & 8 == 0 {
            ControlOp::Activate
        } else {
            ControlOp::Deactivate
        };
        if r & 16 == 0 {
            request_control(node, op).await;
            ACCEPTED.fetch_add(1, Ordering::SeqCst);
        } else if try_request_control(node, op).is_ok() {
            ACCEPTED.fetch_add(1, Ordering::SeqCst);
        } else {
            REFUSED.fetch_add(1, Ordering::SeqCst);
        }
        if r & 32 == 0 {
            embassy_futures::yield_now().await;
        }
    }
    SENDERS_DONE.fetch_add(1, Ordering::SeqCst);
}

#[embassy_executor::task]
async fn storm_driver(spawner: Spawner) {
    loop {
        let cmd = wait_control().await;
        let idx = STORM_NODES
            .iter()
            .position(|n| core::ptr::eq(*n, cmd.node))
            .unwrap() as u32;
        LAST.store(
            idx * 2 + (cmd.op == ControlOp::Deactivate) as u32,
            Ordering::SeqCst,
        );
        SUP2.apply_control(cmd, spawner).await.unwrap();
        APPLIED.fetch_add(1, Ordering::SeqCst);
    }
}

#[embassy_executor::task]
async fn storm(spawner: Spawner) {
    SUP2.start(spawner).await.unwrap();
    spawner.spawn(storm_driver(spawner).unwrap());
    for seed in [0x1234_5678, 0x9e37_79b9, 0x0bad_cafe] {
        spawner.spawn(sender(seed).unwrap());
    }
    while SENDERS_DONE.load(Ordering::SeqCst) < SENDERS
        || APPLIED.load(Ordering::SeqCst) < ACCEPTED.load(Ordering::SeqCst)
    {
        embassy_futures::yield_now().await;
    }
    let (accepted, refused, applied) = (
        ACCEPTED.load(Ordering::SeqCst),
        REFUSED.load(Ordering::SeqCst),
        APPLIED.load(Ordering::SeqCst),
    );
    println!(
        "control storm: {accepted} accepted and applied={applied}, {refused} refused (ControlQueueFull)"
    );
    assert_eq!(
        accepted + refused,
        SENDERS * PER_SENDER,
        "every call was either accepted or refused"
    );
    assert_eq!(
        applied, accepted,
        "every accepted command was applied, none lost"
    );
    assert!(refused > 0, "the storm must actually fill the mailbox");

    // The graph is in the state the last command implies.
    let last = LAST.load(Ordering::SeqCst);
    let (target, deactivate) = ((last / 2) as usize, last % 2 == 1);
    if deactivate {
        for n in &STORM_NODES[target..] {
            assert!(
                n.is_disabled() && !n.is_running(),
                "{} must be down after Deactivate",
                n.name
            );
        }
    } else {
        for n in &STORM_NODES[..=target] {
            assert!(
                !n.is_disabled() && n.is_running(),
                "{} must be up after Activate",
                n.name
            );
        }
    }
    // Dependencies are up under every running dependent.
    for w in STORM_NODES.windows(2) {
        assert!(
            !w[1].is_running() || w[0].is_running(),
            "{} runs without {}",
            w[1].name,
            w[0].name
        );
    }
    common::pass();
}

#[test]
fn control_storm_loses_nothing() {
    common::run(&STORM_NODES, |s| s.spawn(storm(s).unwrap()));
}
