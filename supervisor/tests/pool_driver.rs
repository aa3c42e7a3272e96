//! `run_pools` on a real executor: growth under load, deferred shrink, never
//! growing onto a down dependency and retrying when it comes back, the
//! idleness re-check before a shrink, and a wedged member surfacing as
//! `NodeFault` (`AckMissed`).
#![cfg(feature = "pool")]
mod common;

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::{
    DeferredShrink, ElasticPool, Graph, Mode, NodeSpec, Pool, Supervisor, TaskNode,
};
use embassy_time::Duration;

/// Stamps one independent graph (BROKER + a 3-member pool) per test: tests in
/// one binary must not share node statics.
macro_rules! pool_graph {
    ($m:ident) => {
        mod $m {
            use super::*;

            /// A pool worker that acks every stop, unless its member is wedged.
            #[embassy_executor::task(pool_size = 3)]
            async fn member(node: &'static TaskNode, wedged: &'static AtomicBool) {
                node.wait_shutdown().await;
                if wedged.load(Ordering::Acquire) {
                    core::future::pending::<()>().await;
                }
                node.mark_exited();
            }

            #[embassy_executor::task]
            async fn broker(node: &'static TaskNode) {
                let _ = node
                    .run_cancellable_acked(core::future::pending::<()>())
                    .await;
            }

            pub static WEDGED: [AtomicBool; 3] = [
                AtomicBool::new(false),
                AtomicBool::new(false),
                AtomicBool::new(false),
            ];

            fn spawn_broker(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                s.spawn(broker(&BROKER)?);
                Ok(())
            }
            fn spawn_w0(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                s.spawn(member(&WORKERS[0], &WEDGED[0])?);
                Ok(())
            }
            fn spawn_w1(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                s.spawn(member(&WORKERS[1], &WEDGED[1])?);
                Ok(())
            }
            fn spawn_w2(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                s.spawn(member(&WORKERS[2], &WEDGED[2])?);
                Ok(())
            }

            pub static BROKER: TaskNode = TaskNode::new(
                &NodeSpec::new("BROKER", Mode::Terminate)
                    .with_spawn(spawn_broker)
                    .at(0),
            );
            pub static WORKERS: [TaskNode; 3] = [
                TaskNode::new(
                    &NodeSpec::new("WORKERS[0]", Mode::Terminate)
                        .with_spawn(spawn_w0)
                        .at(1)
                        .in_pool(0),
                ),
                TaskNode::new(
                    &NodeSpec::new("WORKERS[1]", Mode::OnDemand)
                        .with_spawn(spawn_w1)
                        .at(2)
                        .in_pool(0),
                ),
                TaskNode::new(
                    &NodeSpec::new("WORKERS[2]", Mode::OnDemand)
                        .with_spawn(spawn_w2)
                        .at(3)
                        .in_pool(0),
                ),
            ];
            static WORKERS_POOL: ElasticPool<DeferredShrink> = ElasticPool::new(
                &WORKERS,
                1,
                1,
                3,
                DeferredShrink::new(Duration::from_secs(4)),
            );
            static POOLS: [&dyn Pool; 1] = [&WORKERS_POOL];
            static GRAPH: Graph<4> = Graph::new(
                [
                    Some(&BROKER),
                    Some(&WORKERS[0]),
                    Some(&WORKERS[1]),
                    Some(&WORKERS[2]),
                ],
                [&[], &[0], &[0], &[0]],
            )
            .with_pools(&POOLS);
            pub static SUP: Supervisor<4> = Supervisor::new(&GRAPH);

            pub const ALL: [&TaskNode; 4] = [&BROKER, &WORKERS[0], &WORKERS[1], &WORKERS[2]];

            pub fn running() -> [bool; 3] {
                [
                    WORKERS[0].is_running(),
                    WORKERS[1].is_running(),
                    WORKERS[2].is_running(),
                ]
            }
        }
    };
}

pool_graph!(g1);
pool_graph!(g2);
pool_graph!(g3);
pool_graph!(g4);

/// Run `script` while the pool driver runs; the driver must not finish first.
async fn with_driver(
    sup: &'static Supervisor<4>,
    spawner: Spawner,
    script: impl Future<Output = ()>,
) {
    match select(sup.run_pools(spawner), script).await {
        Either::First(e) => panic!("run_pools returned early: {e}"),
        Either::Second(()) => {}
    }
}

#[embassy_executor::task]
async fn grow_shrink_and_dependency(spawner: Spawner) {
    use g1::*;
    SUP.start(spawner).await.unwrap();
    assert_eq!(
        running(),
        [true, false, false],
        "start brings up the floor only"
    );
    with_driver(&SUP, spawner, async {
        common::settle().await;
        assert_eq!(
            running(),
            [true, false, false],
            "an idle floor does not grow"
        );

        WORKERS[0].mark_busy();
        common::settle().await;
        assert_eq!(running(), [true, true, false], "saturated: grows at once");
        WORKERS[1].mark_busy();
        common::settle().await;
        assert_eq!(running(), [true, true, true]);
        WORKERS[2].mark_busy();
        common::settle().await;
        assert_eq!(running(), [true, true, true], "never past max");

        // Idle surplus: nothing shrinks before the cooldown.
        WORKERS[1].mark_idle();
        WORKERS[2].mark_idle();
        common::settle().await;
        common::advance(Duration::from_millis(3_900));
        common::settle().await;
        assert_eq!(running(), [true, true, true], "cooldown not over");
        common::advance(Duration::from_millis(200));
        common::settle().await;
        assert_eq!(
            running(),
            [true, true, false],
            "one surplus member shrank (highest first)"
        );
        // One idle spare while WORKERS[0] is busy: the dead-band holds it.
        common::advance(Duration::from_secs(60));
        common::settle().await;
        assert_eq!(
            running(),
            [true, true, false],
            "the single spare never flaps"
        );
        WORKERS[0].mark_idle();
        common::settle().await;
        common::advance(Duration::from_secs(5));
        common::settle().await;
        assert_eq!(
            running(),
            [true, false, false],
            "shrinks to the floor, never below"
        );

        // Pitfall 9: a grow refused because the dependency is down is retried
        // when it comes back, with nothing else waking the driver.
        SUP.stop_node(&BROKER).await.unwrap();
        WORKERS[0].mark_busy();
        common::settle().await;
        assert_eq!(
            running(),
            [true, false, false],
            "never grows onto a down dependency"
        );
        SUP.start_node(&BROKER, spawner).await.unwrap();
        common::settle().await;
        assert_eq!(
            running(),
            [true, true, false],
            "dependency back: the deferred grow happens"
        );
        WORKERS[0].mark_idle();
    })
    .await;
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn grows_shrinks_and_waits_for_dependencies() {
    common::run(&g1::ALL, |s| {
        s.spawn(grow_shrink_and_dependency(s).unwrap())
    });
}

#[embassy_executor::task]
async fn wedged_member(spawner: Spawner) {
    use g2::*;
    SUP.start(spawner).await.unwrap();
    WORKERS[0].mark_busy();
    let script = async {
        common::settle().await;
        assert_eq!(running(), [true, true, false]);
        WEDGED[1].store(true, Ordering::Release);
        WORKERS[0].mark_idle();
        common::settle().await;
        common::advance(Duration::from_secs(5)); // cooldown: the shrink starts
        common::settle().await;
        common::advance(Duration::from_secs(3)); // past the 2 s ack timeout
        core::future::pending::<()>().await
    };
    match select(SUP.run_pools(spawner), script).await {
        Either::First(fault) => {
            assert_eq!(fault.kind, embassy_supervisor::FaultKind::AckMissed);
            assert_eq!(fault.node.name, "WORKERS[1]");
        }
        Either::Second(()) => unreachable!(),
    }
    common::pass();
}

#[test]
fn a_wedged_member_ends_run_pools_with_shutdown_timeout() {
    common::run(&g2::ALL, |s| s.spawn(wedged_member(s).unwrap()));
}

/// One graph's pool driver, as a task of its own: each of the two waits
/// must be woken for itself (in one task, either's wake would poll both).
#[embassy_executor::task(pool_size = 2)]
async fn pool_driver(sup: &'static Supervisor<4>, spawner: Spawner) {
    let e = sup.run_pools(spawner).await;
    panic!("run_pools returned early: {e}");
}

/// Two graphs' pool drivers wait at once: one holds the driver's own waker
/// slot, the other waits with the observers (`notify::ChangeWait`). Every
/// change must reach both, whichever holds the slot.
#[embassy_executor::task]
async fn two_drivers_at_once(spawner: Spawner) {
    g3::SUP.start(spawner).await.unwrap();
    g4::SUP.start(spawner).await.unwrap();
    spawner.spawn(pool_driver(&g3::SUP, spawner).unwrap());
    spawner.spawn(pool_driver(&g4::SUP, spawner).unwrap());
    common::settle().await;
    for round in 0..3 {
        // Each graph in turn, so the one whose change comes first is
        // sometimes the slot's holder and sometimes the other.
        let (first, second) = if round % 2 == 0 {
            (&g3::WORKERS, &g4::WORKERS)
        } else {
            (&g4::WORKERS, &g3::WORKERS)
        };
        first[0].mark_busy();
        common::settle().await;
        assert!(first[1].is_running(), "round {round}: the first pool grew");
        assert!(!second[1].is_running(), "round {round}: the other did not");
        second[0].mark_busy();
        common::settle().await;
        assert!(
            second[1].is_running(),
            "round {round}: the second pool grew"
        );
        first[0].mark_idle();
        second[0].mark_idle();
        common::settle().await;
        common::advance(Duration::from_millis(4_100));
        common::settle().await;
        assert_eq!(
            g3::running(),
            [true, false, false],
            "round {round}: g3 shrank back"
        );
        assert_eq!(
            g4::running(),
            [true, false, false],
            "round {round}: g4 shrank back"
        );
    }
    common::pass();
}

#[test]
fn two_pool_drivers_waiting_at_once_both_see_every_change() {
    let all = [g3::ALL, g4::ALL].concat();
    common::run(&all, |s| s.spawn(two_drivers_at_once(s).unwrap()));
}
