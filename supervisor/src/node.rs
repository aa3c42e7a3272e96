//! `TaskNode`: one per supervised task. It refers to the node's [`NodeSpec`]
//! (identity, in flash) and holds the task's half of the lifecycle protocol in
//! RAM: one packed atomic flag word and one waker slot (`node/waiter.rs`).

use core::future::{Future, poll_fn};
use core::pin::pin;
use core::task::Poll;

#[cfg(feature = "breadcrumb")]
use crate::sync::AtomicU8;
#[cfg(feature = "liveness")]
use crate::sync::{AtomicBool, AtomicU32};
use crate::sync::{AtomicU16, Ordering, const_unless_loom};
use embassy_executor::{SpawnError, SpawnToken, Spawner};

use crate::notify;
use crate::phase::Phase;
use cancel::Cancellable;
use waiter::{NodeWait, TaskWaker};

mod cancel;
#[cfg(feature = "breadcrumb")]
pub(crate) mod crumb;
#[cfg(feature = "fault-inject")]
mod inject;
#[cfg(feature = "liveness")]
mod liveness;
#[cfg(feature = "readiness")]
mod readiness;
mod resident;
#[cfg(feature = "lifecycle-sink")]
mod sink;
mod spec;
mod state;
#[cfg(feature = "trace")]
mod trace_access;
mod transition;
mod waiter;

pub use cancel::Aborted;
#[cfg(feature = "fault-inject")]
pub use inject::{Crashed, Fault, NoFaultShell};
#[doc(hidden)]
pub use resident::ShellTurn;
#[cfg(feature = "lifecycle-sink")]
pub use sink::{LifecycleSink, set_lifecycle_sink};
pub use spec::{DEFAULT_SLOT_TIMEOUT, NodeSpec, SHUTDOWN_ACK_TIMEOUT};
pub(crate) use state::State;
pub(crate) use transition::{transition, transition_wait};
#[cfg(feature = "trace")]
mod poll_stats;
#[cfg(feature = "trace")]
pub use poll_stats::NodeStats;
#[cfg(feature = "trace")]
pub(crate) use poll_stats::{NodeTrace, add as add_single_writer};

/// What the whole-graph transitions do to a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum Mode {
    /// Started at boot; exits on stop; respawned by `respawn_terminate`.
    Terminate,
    /// Started at boot; on stop it acks and parks on `wait_resume()`, keeping
    /// what it holds; resumed in place.
    Pause,
    /// Not started at boot: pools and control start it.
    OnDemand,
}

/// How the supervisor spawns a node: build the task's `SpawnToken` for `node`
/// and hand it to the spawner (or to a [`SpawnerSlot`](crate::SpawnerSlot) for
/// an `executor:` node). It receives the node, so one fn serves every node
/// that runs the same task (a pool's members, a hand-built graph of alike
/// workers). It must leave every resource where it found it when it fails:
/// take resources as [`Lent`](crate::Lent) task arguments (the generated glue
/// does).
pub type SpawnFn = fn(&'static TaskNode, Spawner) -> Result<(), SpawnError>;

/// Flag bits of [`TaskNode`]'s 16-bit state word. One atomic word keeps every
/// transition a single read-modify-write, so an observer on another core never
/// sees a half-applied transition (e.g. "not running" before "exited").
/// Private to `node/`: everyone else reads a [`State`] and its predicates.
mod flag {
    /// An instance is up (spawned or resumed, not yet acked or exited).
    pub const RUNNING: u16 = 1 << 0;
    /// A stop (or pause) was requested and not yet cleared by a pre-spawn reset.
    pub const SHUTDOWN: u16 = 1 << 1;
    /// The last instance's body returned (`mark_exited`).
    pub const EXITED: u16 = 1 << 2;
    /// The "a human said stop" latch (`deactivate` / `disabled`).
    pub const DISABLED: u16 = 1 << 3;
    /// Self-managed: every supervisor operation skips it.
    pub const DETACHED: u16 = 1 << 4;
    /// The instance reported load (`mark_busy`).
    pub const BUSY: u16 = 1 << 5;
    /// The activation parity: every activation step flips it (an undone
    /// step flips it back). A resident shell remembers the parity of the
    /// activation it runs ([`ShellTurn`](super::ShellTurn)): the same parity
    /// with `RUNNING` set is its own activation, not acked yet; another
    /// parity is a new activation, begun after its ack, whose `RUNNING` its
    /// end must leave alone. (A `Pause` resume continues the same
    /// activation: no flip.) Bit 6, next to `RUNNING`'s bit 0: the step
    /// sets one and flips the other with one XOR of an immediate Thumb-2
    /// can encode (`0x41`; with bit 13 it took a register and a spill,
    /// +2 instructions a node on CHAIN(64) start).
    pub const GEN: u16 = 1 << 6;
    /// A resume is pending: for a parked `Pause` instance, or (the glue's
    /// hand-over) for a parked resident shell. Never both: each is handed
    /// only to a node that reads as down, and the step that hands it over
    /// marks the node up.
    pub const RESUME: u16 = 1 << 7;
    /// The collateral hold: a transitive dependency was deactivated. Released
    /// by `activate` of that dependency (or of this node).
    pub const HELD: u16 = 1 << 8;
    /// What keeps a down node down: no bring-up path starts it.
    pub const BLOCKED: u16 = DISABLED | HELD | DETACHED;
    /// The `DISABLED` latch was set by the node's `enabled_if:` predicate,
    /// not by a human: `start_node` may lift it.
    #[cfg(feature = "enabled-if")]
    pub const GATED: u16 = 1 << 10;
    /// A wait on this node found its waker slot held by another wait: it
    /// waits with the crate-wide observers, which stop requests (resumes,
    /// hand-overs) must then wake too. Cleared by each activation, which
    /// then wakes the observers: a second wait still there sets it again
    /// (see `TaskNode::activated`), so it does not outlive the waits.
    pub const SHARED_WAIT: u16 = 1 << 9;
    /// A stop wave is about to ask this running node to stop: set before
    /// the wave's last look for a member that came back behind it, taken
    /// back if one did (see `TaskNode::mark_asked`). A bring-up of a
    /// dependent treats it as stopping. Set only on a running node; the
    /// next activation clears it, the ack leaves it (inert once `RUNNING`
    /// is clear). (Bit 11 was `liveness`'s stale mark, which moved to its
    /// own byte in `TaskNode`'s padding: the word had no bit left.)
    pub const ASKED: u16 = 1 << 11;
    /// A resident task shell serves this node: activations wake it in
    /// place instead of spawning (see `node/resident.rs`). Never cleared.
    pub const RESIDENT: u16 = 1 << 12;
    /// The task asserted readiness (`set_ready`). (Bit 13 since the
    /// activation parity took bit 6.)
    pub const READY: u16 = 1 << 13;
    /// The last spawn attempt returned `Busy`: the next one, after one
    /// executor pass, is the last.
    pub const RETRY: u16 = 1 << 14;
    /// The last instance's body returned a failure (`mark_failed`): what
    /// `restart: on_failure` restarts.
    pub const FAILED: u16 = 1 << 15;
    /// Flags a fresh activation starts without.
    pub const RESET: u16 =
        SHUTDOWN | EXITED | BUSY | READY | RESUME | ASKED | RETRY | FAILED | SHARED_WAIT;
}

/// One supervised task: a reference to its [`NodeSpec`] (in flash) and the
/// mutable half (in RAM): one packed flag word and one waker slot.
///
/// Declared as a `static` (normally by `supervisor_graph!`) around a const
/// spec; the spec's fields and accessors are reachable through the node:
///
/// ```
/// use embassy_supervisor::{Mode, NodeSpec, TaskNode};
/// static SENSOR: TaskNode =
///     TaskNode::new(&NodeSpec::new("SENSOR", Mode::Pause).with_slot_timeout(500));
/// assert_eq!(SENSOR.name, "SENSOR");
/// ```
///
/// All status methods are cheap atomic loads, safe from any thread or core.
pub struct TaskNode {
    spec: &'static NodeSpec,
    state: AtomicU16,
    task_waker: TaskWaker,
    #[cfg(feature = "liveness")]
    last_beat: AtomicU32,
    /// `wait_health` reported this instance stale (feature `liveness`); the
    /// next beat (an activation beats too) clears it, so a node that
    /// recovers and stalls again is reported again. A byte of the struct's
    /// padding on 32-bit targets (beside the breadcrumb's), so no RAM.
    #[cfg(feature = "liveness")]
    stale: AtomicBool,
    #[cfg(feature = "trace")]
    trace: NodeTrace,
    /// The last `Phase` driven (feature `breadcrumb`): a spare byte of the
    /// struct's padding on 32-bit targets, so it costs no RAM there.
    #[cfg(feature = "breadcrumb")]
    pub(crate) crumb: AtomicU8,
    /// The node's place among the transitions in flight (feature
    /// `breadcrumb`): two links, 8 bytes on 32-bit targets.
    #[cfg(feature = "breadcrumb")]
    pub(crate) crumb_links: crumb::Links,
    /// The injected fault (feature `fault-inject`).
    #[cfg(feature = "fault-inject")]
    fault: inject::FaultCell,
}

impl core::ops::Deref for TaskNode {
    type Target = NodeSpec;

    fn deref(&self) -> &NodeSpec {
        self.spec
    }
}

impl TaskNode {
    const_unless_loom! {
        /// The node declared by `spec` (a `disabled` spec starts disabled).
        pub const fn new(spec: &'static NodeSpec) -> Self {
            Self {
                spec,
                state: AtomicU16::new(if spec.disabled { flag::DISABLED } else { 0 }),
                task_waker: TaskWaker::new(),
                #[cfg(feature = "liveness")]
                last_beat: AtomicU32::new(0),
                #[cfg(feature = "liveness")]
                stale: AtomicBool::new(false),
                #[cfg(feature = "trace")]
                trace: NodeTrace::new(),
                #[cfg(feature = "breadcrumb")]
                crumb: AtomicU8::new(Phase::Idle as u8),
                #[cfg(feature = "breadcrumb")]
                crumb_links: crumb::Links::new(),
                #[cfg(feature = "fault-inject")]
                fault: inject::FaultCell::new(),
            }
        }
    }

    /// The node's immutable declaration.
    pub const fn spec(&self) -> &'static NodeSpec {
        self.spec
    }

    // ---- status ---------------------------------------------------------

    fn flags(&self) -> u16 {
        self.state.load(Ordering::Acquire)
    }

    /// One Acquire read of the lifecycle word (see [`State`]).
    pub(crate) fn state(&self) -> State {
        State(self.flags())
    }

    fn has(&self, bit: u16) -> bool {
        self.flags() & bit != 0
    }

    /// An instance is up: spawned (or resumed), not acked, not exited.
    pub fn is_running(&self) -> bool {
        self.has(flag::RUNNING)
    }

    /// The instance reported `mark_busy()`.
    pub fn is_busy(&self) -> bool {
        self.has(flag::BUSY)
    }

    /// Declared `disabled` or control-deactivated, and not re-activated since.
    pub fn is_disabled(&self) -> bool {
        self.has(flag::DISABLED)
    }

    /// Held down because a transitive dependency was deactivated (the
    /// collateral hold). `activate` of that dependency releases it (once no
    /// other dependency is disabled or held), as does `activate` of this node.
    pub fn is_held(&self) -> bool {
        self.has(flag::HELD)
    }

    /// Self-managed: every supervisor operation skips it.
    pub fn is_detached(&self) -> bool {
        self.has(flag::DETACHED)
    }

    /// The last instance's body returned; cleared by the pre-spawn reset.
    pub fn has_exited(&self) -> bool {
        self.has(flag::EXITED)
    }

    /// A stop or pause was requested; stays set until the next pre-spawn reset
    /// (a parked `Pause` node still reads `true`).
    pub fn shutdown_requested(&self) -> bool {
        self.has(flag::SHUTDOWN)
    }

    /// A `Pause` instance that acked a stop and waits in `wait_resume()`.
    pub(crate) fn is_parked(&self) -> bool {
        let f = self.flags();
        self.spec.mode == Mode::Pause
            && f & (flag::RUNNING | flag::EXITED) == 0
            && f & flag::SHUTDOWN != 0
    }

    // ---- task side ------------------------------------------------------

    /// Park until a stop or pause is requested (immediately if one already is).
    /// Any number of tasks may wait.
    pub async fn wait_shutdown(&self) {
        let mut wait = pin!(NodeWait::new(self));
        poll_fn(|cx| {
            if wait.as_mut().until(cx, Self::shutdown_requested) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await
    }

    /// Race `fut` against a stop request. `Err(Aborted)` if the stop came first
    /// (the future is dropped); no ack is sent, so cleanup can run before
    /// [`ack_dropped`](Self::ack_dropped).
    pub fn run_cancellable<F: Future>(
        &self,
        fut: F,
    ) -> impl Future<Output = Result<F::Output, Aborted>> {
        Cancellable::<_, cancel::NoAck>::new(self, fut)
    }

    /// [`run_cancellable`](Self::run_cancellable), acking the stop on `Err(Aborted)`.
    pub fn run_cancellable_acked<F: Future>(
        &self,
        fut: F,
    ) -> impl Future<Output = Result<F::Output, Aborted>> {
        Cancellable::<_, cancel::Ack>::new(self, fut)
    }

    /// Complete the stop handshake: the node reads as down and the waiting
    /// supervisor resumes.
    pub fn ack_dropped(&self) {
        // A parked `Pause` instance keeps what it provided: it resumes in
        // place and will not provide again.
        if self.spec.mode != Mode::Pause {
            self.withdraw_provided();
        }
        let before = self
            .state
            .fetch_and(!(flag::RUNNING | flag::BUSY), Ordering::AcqRel);
        left_stopping(before);
        notify::changed();
        transition(self, Phase::Stopped);
    }

    /// Ack and record an autonomous completion in one step (`has_exited()` is
    /// true whenever `is_running()` reads false because of it). Generated
    /// `task:` shells call it when the worker returns.
    pub fn mark_exited(&self) {
        self.exited(flag::EXITED);
    }

    /// [`mark_exited`](Self::mark_exited), recording the end as a failure
    /// (`has_failed()`): a node with `restart: on_failure` is restarted.
    /// Generated `task:` shells call it when the worker's `exit:` value is
    /// a failure (`ExitStatus`, feature `restart`).
    pub fn mark_failed(&self) {
        self.exited(flag::EXITED | flag::FAILED);
    }

    /// The last instance ended with [`mark_failed`](Self::mark_failed);
    /// cleared by the pre-spawn reset.
    pub fn has_failed(&self) -> bool {
        self.has(flag::FAILED)
    }

    fn exited(&self, how: u16) {
        if self.is_running() {
            self.withdraw_provided();
        }
        let before = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |f| {
                Some((f & !(flag::RUNNING | flag::BUSY)) | how)
            })
            .unwrap_or_else(|f| f);
        left_stopping(before);
        self.policy_changed();
        // Observers wait for "down"; after an ack the node already was, and
        // they were told then.
        if before & flag::RUNNING != 0 {
            notify::changed();
        }
        transition(self, Phase::Exited);
    }

    /// The instance ends: empty the slots it provided
    /// ([`NodeSpec::with_provides`]), before it reads as down, so a
    /// consumer's next spawn waits for the next instance's fresh value.
    fn withdraw_provided(&self) {
        for slot in self.spec.provides {
            slot.withdraw();
        }
    }

    /// `Pause` nodes: after acking, park until the supervisor resumes this
    /// instance. Returns at once if a resume is already pending.
    pub async fn wait_resume(&self) {
        let mut wait = pin!(NodeWait::new(self));
        poll_fn(|cx| {
            if wait.as_mut().until(cx, Self::take_resume) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await
    }

    fn take_resume(&self) -> bool {
        self.state.fetch_and(!flag::RESUME, Ordering::AcqRel) & flag::RESUME != 0
    }

    /// Report load. A real idle→busy transition asks the pool driver to
    /// re-evaluate; repeated calls cost one atomic op.
    pub fn mark_busy(&self) {
        if self.state.fetch_or(flag::BUSY, Ordering::AcqRel) & flag::BUSY == 0 {
            self.load_changed();
        }
    }

    /// Report the end of load. A real busy→idle transition asks the pool
    /// driver to re-evaluate.
    pub fn mark_idle(&self) {
        if self.state.fetch_and(!flag::BUSY, Ordering::AcqRel) & flag::BUSY != 0 {
            self.load_changed();
        }
    }

    fn load_changed(&self) {
        // What `pool::request_scale` does: the pool driver re-evaluates on
        // every change of the notify epoch.
        #[cfg(feature = "pool")]
        if self.pool.is_some() {
            notify::changed();
        }
    }

    /// Opt out of (or back into) supervision. A detached node is skipped by
    /// every supervisor operation; its `deps:` only ordered its first spawn.
    pub fn set_detached(&self, detached: bool) {
        if detached {
            self.state.fetch_or(flag::DETACHED, Ordering::AcqRel);
        } else {
            self.state.fetch_and(!flag::DETACHED, Ordering::AcqRel);
        }
        notify::changed();
    }

    /// Parked nodes: register an instance the application spawned by hand.
    /// The node starts a fresh activation (pre-spawn reset) and reads as
    /// running, and the task is [bound](Self::bind) to the node. Call it with
    /// the token, before `Spawner::spawn`.
    pub fn adopt<S>(&'static self, token: &SpawnToken<S>) {
        self.bind(token);
        let _ = self.begin_activation();
        notify::changed();
    }

    // ---- supervisor side ------------------------------------------------

    /// The node was marked up: tell stop waves in flight
    /// ([`notify::activated`]) and (feature `restart`) the restart driver.
    #[inline]
    fn marked_up(&self) {
        notify::activated();
        self.policy_changed();
    }

    /// A node with a restart policy started or ended an instance: the
    /// driver looks at its policy nodes again. One load for other nodes.
    /// An end alone calls only this: an exit brings nothing up, and a stop
    /// wave that saw the activation counter move would scan its span for a
    /// member up again at each node it asks (O(nodes) per ask).
    #[inline]
    fn policy_changed(&self) {
        #[cfg(feature = "restart")]
        if self.spec.restart.is_some() {
            crate::policy::poke();
        }
    }

    /// Pre-spawn reset + running, in one step: the instance about to start (or
    /// resume) sees a clean slate and reads as up before its first poll, so an
    /// exit on another core cannot be overwritten.
    /// Returns the flags it replaced, for [`abort_activation`](Self::abort_activation).
    // Out of line (flash): every bring-up path calls it.
    #[inline(never)]
    pub(crate) fn begin_activation(&self) -> State {
        let before = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |f| {
                Some(((f & !flag::RESET) | flag::RUNNING) ^ flag::GEN)
            })
            .unwrap_or_else(|f| f);
        // An adopted instance replaces one that was asked to stop.
        left_stopping(before);
        Self::activated(before);
        #[cfg(feature = "liveness")]
        self.beat();
        self.marked_up();
        State(before)
    }

    /// An activation's atomic step replaced `before`, clearing
    /// `SHARED_WAIT` with the other per-activation flags. If it was set,
    /// the observers are woken: a second wait that is still there registers
    /// again and sets it again before it rechecks (as when it first set
    /// it), so no stop after this step is missed; one that is gone leaves
    /// it clear, and later stops wake the node's own task alone.
    #[inline(always)]
    fn activated(before: u16) {
        if before & flag::SHARED_WAIT != 0 {
            Self::wake_second_waits();
        }
    }

    // Cold and out of line: a second wait on a node is rare, and the
    // activation step it sits in is every bring-up's.
    #[cold]
    #[inline(never)]
    fn wake_second_waits() {
        notify::changed();
    }

    /// [`begin_activation`](Self::begin_activation) only if the node may come
    /// up now: no instance is up, and it is neither disabled, held nor
    /// detached.
    /// Of several concurrent bring-ups the one whose step succeeds spawns;
    /// the others find the node up. A `deactivate` that latched the node
    /// first refuses it in this same atomic step.
    /// `Ok` with the flags it replaced, or `Err` with the flags that refused
    /// it (nothing done).
    ///
    /// `seen`: the state the caller has just read from this node, if it
    /// has (a bring-up reads it to decide whether the node is one to bring
    /// up). The step's first compare expects it, with no load of its own
    /// (one load a node on every spawning verb); a state changed since
    /// costs one retry. `None`: the step loads it (one copy of the CAS
    /// loop where no test of the caller's would be saved).
    // Inline: the bring-up's hot step (out of line it costs a call and
    // the spills around it on every node: +10 instructions per node on
    // CHAIN(64) start, bench/budget.sh).
    #[inline]
    pub(crate) fn try_begin_activation(&self, seen: Option<State>) -> Result<State, State> {
        let step = |f| {
            // `RUNNING` is clear here: one XOR sets it and flips `GEN`.
            (f & (flag::RUNNING | flag::BLOCKED) == 0)
                .then_some((f & !flag::RESET) ^ (flag::RUNNING | flag::GEN))
        };
        let before = match seen {
            Some(seen) => crate::sync::update_from(&self.state, seen.0, step),
            None => self
                .state
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, step),
        }
        .map_err(State)?;
        Self::activated(before);
        // The waker slot is left as it is: it holds the waker of a wait
        // that is still there, if any (see `node/waiter.rs`).
        #[cfg(feature = "liveness")]
        self.beat();
        // Not `marked_up`: the stop waves' activation count is the caller's
        // to bump, after its fence and only while a wave may be looking
        // (`Supervisor::still_clear`).
        self.policy_changed();
        Ok(State(before))
    }

    /// The resume half of [`try_begin_activation`](Self::try_begin_activation):
    /// mark a parked `Pause` instance running with a resume pending, if it
    /// is still parked and neither disabled, held nor detached. The caller wakes
    /// it ([`wake_resumed`](Self::wake_resumed)) or undoes the step
    /// ([`abort_activation`](Self::abort_activation)).
    pub(crate) fn try_begin_resume(&self) -> Result<State, State> {
        let pause = self.spec.mode == Mode::Pause;
        self.state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |f| {
                let parked =
                    pause && f & (flag::RUNNING | flag::EXITED) == 0 && f & flag::SHUTDOWN != 0;
                // The resumed instance has a stop to ack again.
                (parked && f & flag::BLOCKED == 0)
                    .then_some((f & !flag::RESET) | flag::RUNNING | flag::RESUME)
            })
            .inspect(|&before| {
                Self::activated(before);
                notify::activated();
            })
            .map(State)
            .map_err(State)
    }

    /// Let a resumed instance run (after [`try_begin_resume`](Self::try_begin_resume)).
    pub(crate) fn wake_resumed(&self) {
        #[cfg(feature = "liveness")]
        self.beat();
        self.marked_up();
        transition(self, Phase::Resumed);
        self.task_waker.wake(self.flags());
        notify::changed();
    }

    /// Undo [`begin_activation`](Self::begin_activation) after a failed spawn:
    /// no instance started, so the node keeps the status it had (a stopped
    /// node still reads as stopped, not as "exited on its own").
    // Out of line (flash): every bring-up path calls it.
    #[inline(never)]
    pub(crate) fn abort_activation(&self, State(before): State) {
        // The flags as they were just before this update (what
        // `fetch_update` returns): a stop asked meanwhile shows there.
        let prior = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |f| {
                // A second wait that registered meanwhile keeps its mark.
                let undone = flag::RUNNING | flag::GEN | (flag::RESET & !flag::SHARED_WAIT);
                Some((f & !undone) | (before & (flag::RESET | flag::GEN)))
            })
            .unwrap_or_else(|f| f);
        // A stop asked meanwhile (a teardown) is over: the node is down.
        left_stopping(prior);
    }

    /// [`abort_activation`](Self::abort_activation) after the spawn fn
    /// returned `Busy`: `true` if it was the first (the bring-up retries
    /// once, after one executor pass), `false` if the retry failed too.
    pub(crate) fn abort_busy(&self, State(before): State) -> bool {
        let first = before & flag::RETRY == 0;
        self.abort_activation(State(if first {
            before | flag::RETRY
        } else {
            before & !flag::RETRY
        }));
        first
    }

    /// A spawn returned its first `Busy`: the next try is the last.
    pub(crate) fn retry_pending(&self) -> bool {
        self.has(flag::RETRY)
    }

    /// A bring-up gave up after a first `Busy` (a teardown, a latch, or its
    /// caller dropped it): the next bring-up gets its own retry.
    pub(crate) fn drop_retry(&self) {
        if self.retry_pending() {
            self.state.fetch_and(!flag::RETRY, Ordering::AcqRel);
        }
    }

    /// Resume a parked `Pause` instance in place, unless it is disabled,
    /// held or detached (checked in the same atomic step).
    pub(crate) fn resume_parked(&self) {
        if self.try_begin_resume().is_ok() {
            self.wake_resumed();
        }
    }

    /// Wake the node's task (and, if other tasks wait on this node, the
    /// observers), without changing its state: it re-checks what it waits for.
    #[cfg(feature = "fault-inject")]
    fn wake_task(&self) {
        let flags = self.flags();
        self.task_waker.wake(flags);
        if flags & flag::SHARED_WAIT != 0 {
            notify::changed();
        }
    }

    /// Ask the instance to stop (or pause).
    pub(crate) fn request_shutdown(&'static self) {
        let before = self.state.fetch_or(flag::SHUTDOWN, Ordering::AcqRel);
        if before & STOPPING == flag::RUNNING {
            notify::stop_requested();
        }
        transition_wait(self, Phase::Stopping);
        self.task_waker.wake(before);
        // Other tasks waiting on this node wait with the observers; only then
        // does a stop cost an observer wake-up.
        if before & flag::SHARED_WAIT != 0 {
            notify::changed();
        }
    }

    /// The first half of a stop wave's ask (`supervisor/stop_wave.rs`):
    /// mark the node about to be asked ([`flag::ASKED`]), if an instance of
    /// it is up and supervised; `Err` with what refused it otherwise
    /// (nothing done). The wave then fences and looks once more for a
    /// member that came back behind it: if one did, it takes the mark back
    /// ([`unmark_asked`](Self::unmark_asked)) and asks nothing; otherwise it
    /// asks ([`request_shutdown`](Self::request_shutdown)). A bring-up of a
    /// dependent marks itself up, fences, then checks its dependencies for a
    /// mark or a stop (`Supervisor::still_clear`): of the two fences one
    /// comes first, so either the wave sees the dependent up and asks
    /// nothing, or the bring-up sees the mark and undoes itself. Without the
    /// mark the wave's look and its request are two steps a bring-up can
    /// land between (a dependent up on a stopping dependency).
    #[inline]
    pub(crate) fn mark_asked(&self) -> Result<State, State> {
        self.state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |f| {
                (f & (flag::RUNNING | flag::DETACHED) == flag::RUNNING).then_some(f | flag::ASKED)
            })
            .map(State)
            .map_err(State)
    }

    /// Take back [`mark_asked`](Self::mark_asked): a member came back
    /// behind the wave, which asks nothing now and chooses again once its
    /// nodes in flight are down. A stop another verb requested meanwhile
    /// stays (its `SHUTDOWN` is what dependents then see). Cold: a race.
    #[cold]
    #[inline(never)]
    pub(crate) fn unmark_asked(&self) {
        self.state.fetch_and(!flag::ASKED, Ordering::AcqRel);
    }

    /// Ask an idle instance to stop; `false` (and nothing requested) if it
    /// is busy or down. One atomic step, so a worker that turns busy between
    /// a pool's choice and the stop is never stopped mid-job.
    #[cfg(feature = "pool")]
    pub(crate) fn request_shutdown_if_idle(&'static self) -> bool {
        let requested = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |f| {
                (f & (flag::BUSY | flag::RUNNING | flag::DETACHED) == flag::RUNNING)
                    .then_some(f | flag::SHUTDOWN)
            });
        if requested.is_ok_and(|before| before & flag::SHUTDOWN == 0) {
            notify::stop_requested();
        }
        let Ok(before) = requested else {
            return false;
        };
        transition_wait(self, Phase::Stopping);
        self.task_waker.wake(before);
        notify::changed();
        true
    }

    /// Latch `disabled` on behalf of the `enabled_if:` predicate.
    #[cfg(feature = "enabled-if")]
    pub(crate) fn latch_gated(&self) {
        self.state
            .fetch_or(flag::DISABLED | flag::GATED, Ordering::AcqRel);
    }

    /// Lift a latch the predicate set (not a human's): true if it did.
    #[cfg(feature = "enabled-if")]
    pub(crate) fn lift_gated(&self) -> bool {
        let both = flag::DISABLED | flag::GATED;
        self.flags() & both == both && self.state.fetch_and(!both, Ordering::AcqRel) & both == both
    }

    pub(crate) fn set_disabled(&self, disabled: bool) {
        // Any explicit latch or release is a human's: the predicate's mark goes.
        #[cfg(feature = "enabled-if")]
        if self.has(flag::GATED) {
            self.state.fetch_and(!flag::GATED, Ordering::AcqRel);
        }
        self.set_flag(flag::DISABLED, disabled);
    }

    /// Clear the `disabled` latch (the predicate's mark with it) and the
    /// collateral hold, as `activate` does to each node it enables: one
    /// load if neither is set. Returns the state it left (the caller's
    /// bring-up step starts from it).
    pub(crate) fn lift_latches(&self) -> State {
        let latches = flag::DISABLED | flag::HELD;
        #[cfg(feature = "enabled-if")]
        let latches = latches | flag::GATED;
        let seen = self.flags();
        if seen & latches == 0 {
            return State(seen);
        }
        State(self.state.fetch_and(!latches, Ordering::AcqRel) & !latches)
    }

    pub(crate) fn set_held(&self, held: bool) {
        self.set_flag(flag::HELD, held);
    }

    /// Put the collateral hold on, given the state just read from this node
    /// (a cascade reads it anyway): no second load when it is held.
    pub(crate) fn hold_given(&self, seen: State) {
        if !seen.is_held() {
            self.state.fetch_or(flag::HELD, Ordering::AcqRel);
        }
    }

    fn set_flag(&self, bit: u16, on: bool) {
        // A plain load first: cascades mostly meet nodes already in the
        // wanted state, and a load is cheaper than a read-modify-write
        // (a critical section on Cortex-M0).
        if self.has(bit) == on {
            return;
        }
        if on {
            self.state.fetch_or(bit, Ordering::AcqRel);
        } else {
            self.state.fetch_and(!bit, Ordering::AcqRel);
        }
    }
}

impl core::fmt::Debug for TaskNode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TaskNode")
            .field("name", &self.name)
            .field("mode", &self.mode)
            .field("flags", &format_args!("{:#06x}", self.flags()))
            .finish()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for TaskNode {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "TaskNode({=str}, {}, {=u16:#x})",
            self.name,
            self.mode,
            self.flags()
        )
    }
}

/// The flags of a node asked to stop that has not acked yet.
const STOPPING: u16 = flag::RUNNING | flag::SHUTDOWN;

/// A step that cleared `RUNNING` (or `SHUTDOWN`) found these flags: if the
/// node was stopping, it is not any more ([`notify::any_stopping`]).
fn left_stopping(before: u16) {
    if before & STOPPING == STOPPING {
        notify::stop_ended();
    }
}

#[cfg(any(feature = "liveness", feature = "restart"))]
pub(crate) fn now_ticks32() -> u32 {
    // Truncation is intended: ages are computed with wrapping arithmetic, and
    // a 32-bit word needs no 64-bit atomics on 32-bit targets.
    crate::clock::now() as u32
}

// The RAM budget per node on 32-bit targets (flags packed into one word, one
// waker slot, the pinned shell task, no per-node signals). `liveness` adds one 32-bit heartbeat word,
// `trace` four (task id, poll time, polls, longest poll), `fault-inject` one
// (the injected fault), `breadcrumb` two (its list links; its phase byte
// fits the padding).
#[cfg(target_pointer_width = "32")]
const _: () = assert!(
    core::mem::size_of::<TaskNode>()
        <= 24
            + 4 * (cfg!(feature = "liveness") as usize)
            + 16 * (cfg!(feature = "trace") as usize)
            + 4 * (cfg!(feature = "fault-inject") as usize)
            + 8 * (cfg!(feature = "breadcrumb") as usize),
    "TaskNode grew past its RAM budget"
);
