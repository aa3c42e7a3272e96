//! Randomized model test of the controller's slot machine: random sequences
//! of submissions (random policy, slot and target), completions, spawn
//! failures and teardowns, run against the real controller under
//! `Supervisor::run` and against a small reference model. After every step:
//! the same jobs started in the same order, the same outcomes (each exactly
//! once), the same per-slot status, owner and queue depth, and the worker-side
//! check that no two jobs of one slot ever ran at once.
#![cfg(all(feature = "controller", feature = "pool"))]

mod common;
#[path = "kits/controller.rs"]
mod kit;

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::Poll;

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_supervisor::controller::{
    AdmissionPolicy, ControllerSpec, JobTarget, Key, RejectKind, SlotStatusKind, TaskOutcome,
};
use kit::*;

const SEQUENCES: u64 = 150;
const STEPS: usize = 40;
const DEPTH: usize = 2;
const SLOTS: usize = 4;
const KEYS: u32 = 4;
/// Node targets of the model: A, B, and the stubborn C (ignores a stop
/// until released, so Terminating lasts).
const TARGETS: [usize; 3] = [A_I, B_I, C_I];

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn target(i: usize) -> &'static JobTarget<u32> {
    match i {
        A_I => &TA,
        B_I => &TB,
        _ => &TC,
    }
}

#[derive(Default, Clone)]
struct MSlot {
    key: Option<u32>,
    /// (target, job, terminating)
    owner: Option<(usize, u32, bool)>,
    queue: VecDeque<(usize, u32)>,
}

#[derive(Default)]
struct Model {
    slots: Vec<MSlot>,
    fail_once: [bool; N],
    started: Vec<(usize, u32)>,
    outcomes: BTreeMap<u32, TaskOutcome>,
}

const fn rej(kind: RejectKind) -> TaskOutcome {
    TaskOutcome::Rejected { kind }
}

impl Model {
    fn new() -> Self {
        Self {
            slots: vec![MSlot::default(); SLOTS],
            ..Default::default()
        }
    }

    fn running(&self, t: usize) -> bool {
        self.slots
            .iter()
            .any(|s| s.owner.is_some_and(|(o, _, _)| o == t))
    }

    fn resolve(&mut self, job: u32, o: TaskOutcome) {
        assert!(
            self.outcomes.insert(job, o).is_none(),
            "model resolved {job} twice"
        );
    }

    /// Give slot `i` job `(t, job)`: start it or resolve it, then move on.
    fn start(&mut self, i: usize, t: usize, job: u32) {
        if self.running(t) {
            self.resolve(job, rej(RejectKind::AlreadyRunning));
            self.advance(i);
        } else if std::mem::take(&mut self.fail_once[t]) {
            self.resolve(job, TaskOutcome::Failed);
            self.advance(i);
        } else {
            self.slots[i].owner = Some((t, job, false));
            self.started.push((t, job));
        }
    }

    fn advance(&mut self, i: usize) {
        self.slots[i].owner = None;
        if let Some((t, job)) = self.slots[i].queue.pop_front() {
            self.start(i, t, job);
        }
    }

    fn idle(s: &MSlot) -> bool {
        s.owner.is_none() && s.queue.is_empty()
    }

    fn submit(&mut self, policy: AdmissionPolicy, key: u32, t: usize, job: u32) {
        let i = match self.slots.iter().position(|s| s.key == Some(key)) {
            Some(i) => i,
            None => {
                let i = self
                    .slots
                    .iter()
                    .position(|s| s.key.is_none())
                    .or_else(|| self.slots.iter().position(Self::idle))
                    .expect("4 slots, at most 3 busy");
                self.slots[i].key = Some(key);
                i
            }
        };
        if Self::idle(&self.slots[i]) {
            return self.start(i, t, job);
        }
        match policy {
            AdmissionPolicy::DropIfRunning => self.resolve(job, rej(RejectKind::SlotBusy)),
            AdmissionPolicy::Queue => {
                if self.slots[i].queue.len() == DEPTH {
                    self.resolve(job, rej(RejectKind::QueueFull));
                } else {
                    self.slots[i].queue.push_back((t, job));
                }
            }
            AdmissionPolicy::Replace => {
                if let Some(head) = self.slots[i].queue.front_mut() {
                    let (_, old) = std::mem::replace(head, (t, job));
                    self.resolve(old, rej(RejectKind::SupersededByReplace));
                } else {
                    self.slots[i].queue.push_back((t, job));
                }
                if let Some((o, ojob, term)) = self.slots[i].owner
                    && !term
                {
                    if o == C_I {
                        self.slots[i].owner = Some((o, ojob, true));
                    } else {
                        // A cooperative owner acks at once.
                        self.resolve(ojob, TaskOutcome::Canceled);
                        self.advance(i);
                    }
                }
            }
        }
    }

    /// The worker on `t` returns (on its own, or released while terminating).
    fn complete(&mut self, t: usize) {
        let Some(i) = self
            .slots
            .iter()
            .position(|s| s.owner.is_some_and(|(o, _, _)| o == t))
        else {
            return;
        };
        let Some((_, job, term)) = self.slots[i].owner else {
            return;
        };
        let o = if term {
            TaskOutcome::Canceled
        } else {
            TaskOutcome::Completed
        };
        self.resolve(job, o);
        self.advance(i);
    }

    fn teardown(&mut self) {
        for i in 0..SLOTS {
            let queued: Vec<_> = self.slots[i].queue.drain(..).collect();
            for (_, job) in queued {
                self.resolve(job, rej(RejectKind::ShuttingDown));
            }
            if let Some((_, job, _)) = self.slots[i].owner.take() {
                self.resolve(job, TaskOutcome::Canceled);
            }
        }
    }
}

type Watch = Pin<Box<dyn Future<Output = TaskOutcome>>>;

/// Poll every pending watcher once; collect the resolved ones.
async fn collect(pending: &mut Vec<(u32, Watch)>, seen: &mut BTreeMap<u32, TaskOutcome>) {
    core::future::poll_fn(|cx| {
        pending.retain_mut(|(job, w)| match w.as_mut().poll(cx) {
            Poll::Ready(o) => {
                assert!(seen.insert(*job, o).is_none(), "job {job} resolved twice");
                false
            }
            Poll::Pending => true,
        });
        Poll::Ready(())
    })
    .await
}

fn check(m: &Model, seen: &BTreeMap<u32, TaskOutcome>, ctx: &str) {
    let started: Vec<(&str, u32)> = m.started.iter().map(|&(t, j)| (node(t).name, j)).collect();
    assert_eq!(log(), started, "{ctx}: start order");
    assert_eq!(seen, &m.outcomes, "{ctx}: outcomes");
    assert_eq!(
        VIOLATIONS.load(Ordering::SeqCst),
        0,
        "{ctx}: two jobs of a slot overlapped"
    );
    for t in TARGETS {
        assert_eq!(
            node(t).is_running(),
            m.running(t),
            "{ctx}: node {}",
            node(t).name
        );
    }
    let snap = CTRL.snapshot();
    for s in &m.slots {
        let Some(key) = s.key else { continue };
        let v = snap
            .get(Key::Id(key))
            .unwrap_or_else(|| panic!("{ctx}: slot {key} missing"));
        let status = match s.owner {
            None => SlotStatusKind::Idle,
            Some((_, _, false)) => SlotStatusKind::Running,
            Some((_, _, true)) => SlotStatusKind::Terminating,
        };
        assert_eq!(v.status, status, "{ctx}: slot {key} status");
        assert_eq!(v.queued, s.queue.len(), "{ctx}: slot {key} depth");
        assert_eq!(
            v.owner.map(|o| o.name),
            s.owner.map(|(t, _, _)| node(t).name),
            "{ctx}: slot {key} owner"
        );
    }
}

async fn sequence(seed: u64, next_job: &mut u32, spawner: Spawner) {
    reset();
    STUBBORN[C_I].store(true, Ordering::SeqCst);
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut m = Model::new();
    // Keys of the previous sequence stay in the real slots; mirror them.
    for (ms, v) in m.slots.iter_mut().zip(CTRL.snapshot().slots.iter()) {
        ms.key = v.map(|v| match v.key {
            Key::Id(k) => k,
            Key::Name(_) => u32::MAX,
        });
    }
    let mut pending: Vec<(u32, Watch)> = Vec::new();
    let mut seen = BTreeMap::new();
    for step in 0..=STEPS {
        let op = if step == STEPS { 9 } else { rng.next(10) };
        let ctx = format!("seed {seed} step {step} op {op}");
        match op {
            0..=4 => {
                let policy = match rng.next(3) {
                    0 => AdmissionPolicy::Queue,
                    1 => AdmissionPolicy::Replace,
                    _ => AdmissionPolicy::DropIfRunning,
                };
                let key = rng.next(KEYS as u64) as u32;
                let t = TARGETS[rng.next(3) as usize];
                let job = *next_job;
                *next_job += 1;
                bind(job, key);
                let spec = match policy {
                    AdmissionPolicy::Queue => ControllerSpec::queue(target(t), job),
                    AdmissionPolicy::Replace => ControllerSpec::replace(target(t), job),
                    AdmissionPolicy::DropIfRunning => {
                        ControllerSpec::drop_if_running(target(t), job)
                    }
                };
                pending.push((job, Box::pin(CTRL.submit_and_watch(spec.with_slot(key)))));
                m.submit(policy, key, t, job);
            }
            5..=6 => {
                let t = TARGETS[rng.next(3) as usize];
                if m.running(t) {
                    finish(t);
                    m.complete(t);
                }
            }
            7 => {
                let t = TARGETS[rng.next(3) as usize];
                FAIL_ONCE[t].store(true, Ordering::SeqCst);
                m.fail_once[t] = true;
            }
            8 => {
                // A stubborn owner that was asked to stop gives in.
                if m.slots
                    .iter()
                    .any(|s| s.owner.is_some_and(|(o, _, term)| o == C_I && term))
                {
                    finish(C_I);
                    m.complete(C_I);
                }
            }
            _ => {
                let c_up = m.running(C_I);
                join(SUP.teardown(), async {
                    common::settle().await;
                    if c_up {
                        finish(C_I);
                    }
                })
                .await
                .0
                .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                m.teardown();
                // A torn-down graph admits nothing until it is started
                // again; the model continues from a restarted graph.
                SUP.start(spawner)
                    .await
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
            }
        }
        collect(&mut pending, &mut seen).await;
        common::settle().await;
        collect(&mut pending, &mut seen).await;
        check(&m, &seen, &ctx);
    }
    assert!(pending.is_empty(), "seed {seed}: unresolved after teardown");
    for flag in &FAIL_ONCE {
        flag.store(false, Ordering::SeqCst);
    }
}

#[test]
fn slot_machine_matches_the_model() {
    #[embassy_executor::task]
    async fn drive(spawner: Spawner) {
        with_run(spawner, async {
            let mut next_job = 1;
            for seed in 1..=SEQUENCES {
                sequence(seed, &mut next_job, spawner).await;
            }
        })
        .await;
        common::pass();
    }
    common::run(&watched(), |s| s.spawn(drive(s).unwrap()));
}
