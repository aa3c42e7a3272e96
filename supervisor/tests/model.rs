//! Randomized model test: random sequences of supervisor verbs (restart
//! included) on the kit
//! graph (8 nodes: Terminate, Pause, OnDemand, a diamond BASE→{T,P}→TOP, two
//! `disabled` nodes, one node that detaches itself) against a small reference
//! model of the spec's lifecycle table. After every step:
//!
//! - dependencies up before dependents: every spawn checks that the deps the
//!   step must leave up are already running, and that no dependent that was
//!   down when the step began is up yet (a `Pause` resume has no hook of its
//!   own; this catches one that came before its dependency's spawn). Checked
//!   in the spawn fn, so in the supervisor's order, not the executor's poll
//!   order;
//! - dependents down before dependencies: every ack checks that the
//!   dependents the step must leave down are already down;
//! - no double spawn: each task has a `TaskPool` of 1, so a double spawn is a
//!   refused token, recorded; live instances are counted by the workers;
//! - the disabled latch and the collateral hold keep nodes down, and the
//!   running / disabled / held / detached / live
//!   sets equal the model's.
//!
//! Seeded xorshift (no extra deps); `MODEL_SEED=<u64>` replays a run.
mod common;

use common::model::Rng;
#[path = "kits/lifecycle.rs"]
mod kit;

use common::settle;
use embassy_executor::Spawner;
use embassy_supervisor::Mode;
use kit::Ev::{Refused, Resumed, Spawn};
use kit::*;
use std::sync::atomic::Ordering;

kit_graph!(g);
use g::{GRAPH, K, NODES, REC, SUP};

const SEQUENCES: usize = 500;
const STEPS: usize = 30;
const DEFAULT_SEED: u64 = 0x5eed_0f11_fec7_c1e5;

#[derive(Clone, Copy, Debug)]
enum Verb {
    Start,
    Teardown,
    TeardownContinue,
    RespawnTerminate,
    ResumePausable,
    StartNode(usize),
    StopNode(usize),
    ResumeNode(usize),
    Activate(usize),
    Deactivate(usize),
    /// The worker returns on its own (`mark_exited`).
    Exit(usize),
    /// Rest-for-one restart (`Supervisor::restart`).
    Restart(usize),
}

/// One node as the lifecycle table sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct NodeModel {
    running: bool,
    /// A `Pause` instance that acked a stop and waits to be resumed.
    parked: bool,
    disabled: bool,
    /// The collateral hold of a deactivated dependency.
    held: bool,
    detached: bool,
}

impl NodeModel {
    fn live(&self) -> bool {
        self.running || self.parked
    }

    /// Disabled or held: no bring-up starts it.
    fn blocked(&self) -> bool {
        self.disabled || self.held
    }
}

struct Model {
    nodes: [NodeModel; N],
    modes: [Mode; N],
    /// Between a teardown and the next `start` / `respawn_terminate` /
    /// `activate`: a restart is refused.
    halted: bool,
}

impl Model {
    fn new() -> Self {
        let mut nodes = [NodeModel::default(); N];
        nodes[D_I].disabled = true;
        nodes[DP_I].disabled = true;
        Self {
            nodes,
            modes: core::array::from_fn(|i| NODES[i].mode()),
            halted: false,
        }
    }

    /// The one bring-up path: resume a parked instance, else spawn.
    fn up(&mut self, i: usize) {
        let n = &mut self.nodes[i];
        n.parked = false;
        n.running = true;
        if i == X_I {
            // X detaches itself on its first poll, which the step's settle runs.
            n.detached = true;
        }
    }

    fn stop(&mut self, i: usize) {
        let pause = self.modes[i] == Mode::Pause;
        let n = &mut self.nodes[i];
        n.running = false;
        n.parked = pause;
    }

    fn resume_if_parked(&mut self, i: usize) {
        let n = self.nodes[i];
        if n.parked && !n.blocked() && !n.detached {
            self.up(i);
        }
    }

    /// `i` and everything reachable from it along dependency edges (`up`) or
    /// dependent edges, never entering (or passing through) a detached node.
    fn cascade(&self, i: usize, up: bool) -> [bool; N] {
        let mut set = [false; N];
        let mut stack = vec![i];
        set[i] = true;
        while let Some(n) = stack.pop() {
            for m in 0..N {
                let edge = if up {
                    DEPS[n].contains(&(m as u8))
                } else {
                    DEPS[m].contains(&(n as u8))
                };
                if edge && !set[m] && !self.nodes[m].detached {
                    set[m] = true;
                    stack.push(m);
                }
            }
        }
        set
    }

    /// Apply `v`; returns whether the verb is expected to succeed.
    fn apply(&mut self, v: Verb) -> bool {
        let order = GRAPH.order.map(usize::from);
        match v {
            Verb::Start => {
                self.halted = false;
                for i in order {
                    let n = self.nodes[i];
                    if !(n.detached || n.blocked() || n.running || self.modes[i] == Mode::OnDemand)
                    {
                        self.up(i);
                    }
                }
            }
            Verb::Teardown | Verb::TeardownContinue => {
                self.halted = true;
                for i in order.into_iter().rev() {
                    if self.nodes[i].running && !self.nodes[i].detached {
                        self.stop(i);
                    }
                }
            }
            Verb::RespawnTerminate => {
                self.halted = false;
                for i in order {
                    let n = self.nodes[i];
                    if self.modes[i] == Mode::Terminate && !(n.detached || n.blocked() || n.running)
                    {
                        self.up(i);
                    }
                }
            }
            Verb::ResumePausable => {
                for i in order {
                    self.resume_if_parked(i);
                }
            }
            Verb::StartNode(i) => {
                let n = self.nodes[i];
                if n.detached || n.running {
                    return true;
                }
                if n.blocked() {
                    return false;
                }
                self.up(i);
            }
            Verb::StopNode(i) => {
                if self.nodes[i].running && !self.nodes[i].detached {
                    self.stop(i);
                }
            }
            Verb::ResumeNode(i) => self.resume_if_parked(i),
            Verb::Activate(i) => {
                if self.nodes[i].detached {
                    return true;
                }
                self.halted = false;
                let mut set = self.cascade(i, true);
                for j in order {
                    if !set[j] {
                        continue;
                    }
                    self.nodes[j].disabled = false;
                    self.nodes[j].held = false;
                    self.start_if_wanted(j);
                }
                // The dependents of the set, in order: a held one whose
                // dependencies block it no more is released and started.
                for j in order {
                    if set[j] || self.nodes[j].detached {
                        continue;
                    }
                    if !DEPS[j].iter().any(|&d| set[d as usize]) {
                        continue;
                    }
                    set[j] = true;
                    let blocked = DEPS[j].iter().any(|&d| self.nodes[d as usize].blocked());
                    if self.nodes[j].held && !blocked {
                        self.nodes[j].held = false;
                        if !self.nodes[j].disabled {
                            self.start_if_wanted(j);
                        }
                    }
                }
            }
            Verb::Deactivate(i) => {
                if self.nodes[i].detached {
                    return true;
                }
                let set = self.cascade(i, false);
                for (j, node) in self.nodes.iter_mut().enumerate() {
                    if j == i {
                        node.disabled = true;
                    } else if set[j] {
                        node.held = true;
                    }
                }
                for j in order.into_iter().rev() {
                    if set[j] && self.nodes[j].running {
                        self.stop(j);
                    }
                }
            }
            Verb::Exit(i) => {
                self.nodes[i].running = false;
                self.nodes[i].parked = false;
            }
            Verb::Restart(i) => {
                let n = self.nodes[i];
                if n.detached || n.blocked() || self.halted {
                    return false;
                }
                // The node and its running dependents stop, dependents
                // first; then they come back in dependency order.
                let set = self.cascade(i, false);
                let mut back = [false; N];
                back[i] = true;
                for j in order.into_iter().rev() {
                    if set[j] && self.nodes[j].running {
                        back[j] = true;
                        self.stop(j);
                    }
                }
                for j in order {
                    if back[j] {
                        self.up(j);
                    }
                }
            }
        }
        true
    }

    /// What an activation does to one enabled node: `OnDemand` nodes are
    /// only enabled, running ones left alone.
    fn start_if_wanted(&mut self, j: usize) {
        if self.modes[j] != Mode::OnDemand && !self.nodes[j].running {
            self.up(j);
        }
    }

    fn mask(&self, f: impl Fn(&NodeModel) -> bool) -> u32 {
        (0..N)
            .filter(|&i| f(&self.nodes[i]))
            .fold(0, |m, i| m | 1 << i)
    }
}

fn pick(rng: &mut Rng, model: &Model) -> Verb {
    let i = rng.below(N);
    match rng.below(12) {
        0 => Verb::Start,
        1 => Verb::Teardown,
        2 => Verb::TeardownContinue,
        3 => Verb::RespawnTerminate,
        4 => Verb::ResumePausable,
        5 => Verb::StartNode(i),
        6 => Verb::StopNode(i),
        7 => Verb::ResumeNode(i),
        8 => Verb::Activate(i),
        9 => Verb::Deactivate(i),
        10 => Verb::Restart(i),
        _ => {
            // Only a running, non-Pause worker can return on its own (an exit
            // signal sent to a down node would latch into its next instance).
            let exits: Vec<usize> = (0..N)
                .filter(|&j| model.nodes[j].running && model.modes[j] != Mode::Pause)
                .collect();
            match exits.as_slice() {
                [] => Verb::Start,
                e => Verb::Exit(e[rng.below(e.len())]),
            }
        }
    }
}

async fn run_verb(v: Verb, s: Spawner) -> bool {
    match v {
        Verb::Start => SUP.start(s).await.is_ok(),
        Verb::Teardown => SUP.teardown().await.is_ok(),
        Verb::TeardownContinue => SUP.teardown_continue().await.is_ok(),
        Verb::RespawnTerminate => SUP.respawn_terminate(s).await.is_ok(),
        Verb::ResumePausable => {
            SUP.resume_pausable();
            true
        }
        Verb::StartNode(i) => SUP.start_node(NODES[i], s).await.is_ok(),
        Verb::StopNode(i) => SUP.stop_node(NODES[i]).await.is_ok(),
        Verb::ResumeNode(i) => {
            SUP.resume_node(NODES[i]);
            true
        }
        Verb::Activate(i) => SUP.activate(NODES[i], s).await.is_ok(),
        Verb::Deactivate(i) => SUP.deactivate(NODES[i]).await.is_ok(),
        Verb::Exit(i) => {
            K[i].exit.signal(());
            true
        }
        Verb::Restart(i) => SUP.restart(NODES[i], s).await.is_ok(),
    }
}

/// Every difference between the real graph and the model after a step.
fn diff(model: &Model, step_events: &[(Ev, usize)]) -> Vec<String> {
    let mut out = REC.take_violations();
    for (i, n) in NODES.iter().enumerate() {
        let m = model.nodes[i];
        let live = K[i].live.load(Ordering::SeqCst);
        let real = (
            n.is_running(),
            n.is_disabled(),
            n.is_held(),
            n.is_detached(),
            live,
        );
        let want = (
            m.running,
            m.disabled,
            m.held,
            m.detached,
            u32::from(m.live()),
        );
        if real != want {
            out.push(format!(
                "`{}` (running, disabled, held, detached, live) = {real:?}, model says {want:?}",
                n.name
            ));
        }
        let came_up = step_events
            .iter()
            .any(|&(e, j)| j == i && (e == Spawn || e == Resumed));
        if came_up && (n.is_disabled() || n.is_held()) {
            out.push(format!("`{}` came up while disabled or held", n.name));
        }
    }
    for &(e, j) in step_events {
        if e == Refused {
            out.push(format!("double spawn of `{}`", NODES[j].name));
        }
    }
    out
}

/// Back to the initial state between sequences, through the public API:
/// enable and start everything, re-attach X, tear down, let parked `Pause`
/// instances quit, re-latch the two declared-disabled nodes.
async fn reset(s: Spawner) {
    for n in NODES {
        SUP.activate(n, s).await.unwrap();
    }
    // Re-attach X only now: a fresh spawn above detaches itself again.
    settle().await;
    NODES[X_I].set_detached(false);
    SUP.teardown().await.unwrap();
    for i in [P_I, DP_I] {
        K[i].quit.store(true, Ordering::SeqCst);
        SUP.resume_node(NODES[i]);
    }
    settle().await;
    for i in [P_I, DP_I] {
        K[i].quit.store(false, Ordering::SeqCst);
    }
    SUP.deactivate(NODES[D_I]).await.unwrap();
    SUP.deactivate(NODES[DP_I]).await.unwrap();
    REC.clear();
    let model = Model::new();
    let left = diff(&model, &[]);
    assert!(left.is_empty(), "reset left: {left:#?}");
}

fn seed() -> u64 {
    common::model::replay_seed().unwrap_or(DEFAULT_SEED)
}

#[embassy_executor::task]
async fn driver(s: Spawner) {
    let seed = seed();
    let mut rng = Rng(seed);
    g::provide();
    let mut steps = 0usize;
    for seq in 0..SEQUENCES {
        let mut model = Model::new();
        // `reset` ends in a teardown: every sequence but the first starts halted.
        model.halted = seq > 0;
        let mut history = Vec::new();
        for step in 0..STEPS {
            let v = pick(&mut rng, &model);
            history.push(v);
            REC.was_down(model.mask(|n| !n.running));
            let expect_ok = model.apply(v);
            let up = model.mask(|n| n.running);
            REC.expect(up, !up & ((1 << N) - 1));
            let before = REC.events().len();
            let ok = run_verb(v, s).await;
            settle().await;
            REC.expect(0, 0);
            REC.was_down(0);
            let events = REC.events()[before..].to_vec();
            let mut problems = diff(&model, &events);
            if ok != expect_ok {
                problems.push(format!("{v:?} returned ok={ok}, model says ok={expect_ok}"));
            }
            assert!(
                problems.is_empty(),
                "seed {seed}, sequence {seq}, step {step} ({v:?}):\n{problems:#?}\nhistory: {history:?}"
            );
            steps += 1;
        }
        reset(s).await;
    }
    println!("model: {SEQUENCES} sequences x {STEPS} steps = {steps} verbs checked (seed {seed})");
    common::pass();
}

#[test]
fn random_verb_sequences_match_the_lifecycle_model() {
    common::run(&NODES, |s| s.spawn(driver(s).unwrap()));
}
