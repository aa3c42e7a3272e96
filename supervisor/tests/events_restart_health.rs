//! The restart and health events (features `events` + `liveness`):
//! `Restarted`, `RestartRefused` and `NodeStale`, in order with the
//! lifecycle events of the nodes they cycle.
#![cfg(all(feature = "events", feature = "liveness"))]
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::event::{self, EventKind, EventSubscriber, WaitResult};
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_time::Duration;

static BASE: TaskNode = TaskNode::new(
    &NodeSpec::new("BASE", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .with_beat_timeout(100)
        .at(0),
);
static TOP: TaskNode = TaskNode::new(
    &NodeSpec::new("TOP", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(1),
);
static OFF: TaskNode = TaskNode::new(
    &NodeSpec::new("OFF", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .disabled()
        .at(2),
);
static G: Graph<3> = Graph::new([Some(&BASE), Some(&TOP), Some(&OFF)], [&[], &[0], &[]]);
static SUP: Supervisor<3> = Supervisor::new(&G);

fn drain(sub: &mut EventSubscriber) -> Vec<EventKind> {
    let mut got = Vec::new();
    while let Some(m) = sub.try_next_message() {
        match m {
            WaitResult::Message(e) => got.push(e.kind),
            WaitResult::Lagged(n) => panic!("lagged by {n}"),
        }
    }
    got
}

#[embassy_executor::task]
async fn script(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    let mut sub = event::subscribe().unwrap();

    SUP.restart(&BASE, spawner).await.unwrap();
    common::settle().await;
    assert_eq!(
        drain(&mut sub),
        [
            EventKind::NodeDown { node: "TOP" },
            EventKind::NodeExited { node: "TOP" },
            EventKind::NodeDown { node: "BASE" },
            EventKind::NodeExited { node: "BASE" },
            EventKind::NodeSpawned { node: "BASE" },
            EventKind::NodeSpawned { node: "TOP" },
            EventKind::Restarted { node: "BASE" },
        ]
    );

    assert!(SUP.restart(&OFF, spawner).await.is_err());
    assert_eq!(drain(&mut sub), [EventKind::RestartRefused { node: "OFF" }]);

    let stale = embassy_futures::join::join(G.wait_health(), async {
        common::advance_after_idle(Duration::from_millis(101)).await;
    })
    .await
    .0;
    assert_eq!(stale.name, "BASE");
    assert_eq!(drain(&mut sub), [EventKind::NodeStale { node: "BASE" }]);
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn restart_and_stale_events() {
    common::run(&[&BASE, &TOP, &OFF], |s| s.spawn(script(s).unwrap()));
}
