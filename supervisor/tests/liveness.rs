//! Feature `liveness`: heartbeat age in embassy-time ticks; a fresh spawn
//! counts as a beat; only running nodes can be stale.
#![cfg(feature = "liveness")]
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_time::Duration;

static BEAT: TaskNode = TaskNode::new(
    &NodeSpec::new("BEAT", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static G: Graph<1> = Graph::new([Some(&BEAT)], [&[]]);
static SUP: Supervisor<1> = Supervisor::new(&G);

#[embassy_executor::task]
async fn heartbeat(spawner: Spawner) {
    let max_age = Duration::from_millis(500);
    common::advance(Duration::from_secs(10)); // an old clock: the spawn must still count as a beat
    SUP.start(spawner).await.unwrap();
    assert_eq!(BEAT.ticks_since_beat(), 0, "a fresh spawn counts as a beat");
    assert!(!BEAT.is_stale(max_age));

    common::advance(Duration::from_millis(400));
    assert_eq!(
        u64::from(BEAT.ticks_since_beat()),
        Duration::from_millis(400).as_ticks()
    );
    BEAT.beat();
    common::advance(Duration::from_millis(400));
    assert!(!BEAT.is_stale(max_age), "beat 400 ms ago");
    common::advance(Duration::from_millis(200));
    assert!(BEAT.is_stale(max_age), "no beat for 600 ms");

    SUP.teardown().await.unwrap();
    assert!(!BEAT.is_stale(max_age), "a down node is never stale");
    common::pass();
}

#[test]
fn beat_age_and_staleness() {
    common::run(&[&BEAT], |s| s.spawn(heartbeat(s).unwrap()));
}
