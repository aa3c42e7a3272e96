//! Pool load test: six members flip busy/idle under a randomized schedule on
//! the mock clock while the dependency goes down and up. After every step: the
//! pool never exceeds `max`, never sits below `min` while it can grow, never
//! grows while its dependency is down; at the end it settles to `min`.
#![cfg(feature = "pool")]
mod common;

use embassy_executor::Spawner;
use embassy_futures::select::{Either, select};
use embassy_supervisor::{
    DeferredShrink, ElasticPool, Graph, Mode, NodeSpec, Pool, Supervisor, TaskNode,
};
use embassy_time::Duration;

const MIN: u8 = 1;
const MAX: u8 = 4;
static BROKER: TaskNode = TaskNode::new(
    &NodeSpec::new("BROKER", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static W: [TaskNode; 6] = [
    TaskNode::new(
        &NodeSpec::new("W[0]", Mode::Terminate)
            .with_spawn(common::spawn_worker)
            .at(1)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("W[1]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .at(2)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("W[2]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .at(3)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("W[3]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .at(4)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("W[4]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .at(5)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("W[5]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .at(6)
            .in_pool(0),
    ),
];
static W_POOL: ElasticPool<DeferredShrink> =
    ElasticPool::new(&W, 1, MIN, MAX, DeferredShrink::new(Duration::from_secs(2)));
static POOLS: [&dyn Pool; 1] = [&W_POOL];
static G: Graph<7> = Graph::new(
    [
        Some(&BROKER),
        Some(&W[0]),
        Some(&W[1]),
        Some(&W[2]),
        Some(&W[3]),
        Some(&W[4]),
        Some(&W[5]),
    ],
    [&[], &[0], &[0], &[0], &[0], &[0], &[0]],
)
.with_pools(&POOLS);
static SUP: Supervisor<7> = Supervisor::new(&G);

const STEPS: u32 = 3_000;

fn running_set() -> [bool; 6] {
    core::array::from_fn(|i| W[i].is_running())
}

#[embassy_executor::task]
async fn load(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    let script = async {
        let mut seed: u32 = 0xdead_beef;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let mut trace = String::new();
        let (mut grew_while_down, mut max_seen) = (0, 0);
        for step in 0..STEPS {
            let before = running_set();
            let r = rnd();
            match r % 16 {
                0 => SUP.stop_node(&BROKER).await.unwrap(),
                1 => SUP.start_node(&BROKER, spawner).await.unwrap(),
                2..=8 => {
                    // A running worker takes a job.
                    let i = (r >> 8) as usize % 6;
                    if W[i].is_running() {
                        W[i].mark_busy();
                    }
                }
                _ => W[(r >> 8) as usize % 6].mark_idle(),
            }
            common::settle().await;
            common::advance(Duration::from_millis(u64::from(rnd() % 1_500)));
            common::settle().await;

            let now = running_set();
            let running = now.iter().filter(|&&r| r).count() as u8;
            max_seen = max_seen.max(running);
            assert!(running <= MAX, "step {step}: {running} running > max");
            if BROKER.is_running() {
                assert!(
                    running >= MIN,
                    "step {step}: {running} running < min with the dependency up"
                );
            } else {
                let grew = (0..6).any(|i| now[i] && !before[i]);
                assert!(!grew, "step {step}: grew while the dependency was down");
                grew_while_down += grew as u32;
            }
            if step % 100 == 0 {
                trace += &running.to_string();
            }
        }
        // Settle: everything idle, dependency up, several cooldowns pass.
        SUP.start_node(&BROKER, spawner).await.unwrap();
        for w in &W {
            w.mark_idle();
        }
        for _ in 0..6 {
            common::settle().await;
            common::advance(Duration::from_millis(2_100));
        }
        common::settle().await;
        let settled = running_set().iter().filter(|&&r| r).count() as u8;
        println!(
            "pool load: {STEPS} steps, max running seen {max_seen}, size every 100 steps: {trace}, settled {settled}"
        );
        assert_eq!(settled, MIN, "settles to min after the cooldown");
        assert_eq!(grew_while_down, 0);
        assert_eq!(
            max_seen, MAX,
            "the schedule must actually saturate the pool"
        );
    };
    if let Either::First(e) = select(SUP.run_pools(spawner), script).await {
        panic!("run_pools ended: {e}");
    }
    common::pass();
}

#[test]
fn randomized_load_respects_bounds_and_dependencies() {
    let nodes: Vec<&'static TaskNode> = core::iter::once(&BROKER).chain(W.iter()).collect();
    common::run(&nodes, |s| s.spawn(load(s).unwrap()));
}
