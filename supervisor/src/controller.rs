//! Keyed admission control (feature `controller`): submissions share lanes
//! ("slots") and a policy decides what happens when a lane is busy.
//!
//! A submission ([`ControllerSpec`]) carries a job: a [`JobTarget`] (a node,
//! or a pool's members) and a payload the worker receives through the
//! target's inbox, a `ResourceSlot` filled just before the spawn. Slots are
//! keyed by [`Key`] (default: the target's name). The [`Controller`] is a
//! `static` with compile-time capacities, handed to the supervisor with
//! [`Supervisor::with_controller`]; `Supervisor::run` drives it.
//!
//! Invariants: at most one running job per slot; a queued job touches no node
//! until it owns its slot; `Queue` is FIFO; `Replace` is latest-wins for the
//! next job; a slot advances only after its owner's node is observed down;
//! every accepted submission resolves exactly once for a watcher. See
//! `docs/controller.md` for the design.

use core::cell::RefCell;
use core::future::poll_fn;
use core::task::Poll;

use embassy_executor::{SpawnError, Spawner};
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::waitqueue::MultiWakerRegistration;
use embassy_time::{Duration, Instant};

use crate::node::Mode;
use crate::{ResourceSlot, Supervisor, TaskNode, notify};

/// A slot key: a name, or a small id (no string compare on firmware).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Key {
    /// A named lane (the default: the target's name).
    Name(&'static str),
    /// A numbered lane.
    Id(u32),
}

impl From<&'static str> for Key {
    fn from(name: &'static str) -> Self {
        Key::Name(name)
    }
}

impl From<u32> for Key {
    fn from(id: u32) -> Self {
        Key::Id(id)
    }
}

/// What a submission does when its slot is busy (an idle slot admits every
/// policy at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AdmissionPolicy {
    /// Wait behind older queued jobs (FIFO); a full queue rejects `QueueFull`.
    Queue,
    /// Become the next job: supersede the queued head and ask the running
    /// owner to stop; start once its node is down.
    Replace,
    /// Reject with `SlotBusy`; nothing is started.
    DropIfRunning,
}

/// Why a submission was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RejectKind {
    /// `DropIfRunning` on a busy slot.
    SlotBusy,
    /// The slot's queue was full.
    QueueFull,
    /// A later `Replace` took this job's place as the next one.
    SupersededByReplace,
    /// Every slot holds another key with work in it.
    NoFreeSlot,
    /// The target node was already up (started through another slot or by
    /// another verb) when this job's turn came.
    AlreadyRunning,
    /// The target is deactivated (or detached) when its turn came.
    TargetDisabled,
    /// A teardown resolved the job before it started.
    ShuttingDown,
}

/// The final result of a watched submission, delivered exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskOutcome {
    /// The worker's node went down on its own (its body returned).
    Completed,
    /// Never started.
    Rejected {
        /// Why.
        kind: RejectKind,
    },
    /// Started, then stopped on request (Replace, deactivation, teardown).
    Canceled,
    /// The spawn failed (gate timeout, full task pool, no spawn fn, a
    /// `Pause` target).
    Failed,
}

/// Public status of a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SlotStatusKind {
    /// Nothing running, nothing queued.
    Idle,
    /// A job owns the slot and is being started (or waits for a free pool
    /// member).
    Admitting,
    /// The owner's node is up.
    Running,
    /// The owner was asked to stop (Replace); the next job waits for it to
    /// be down.
    Terminating,
}

/// Why a submission was not handed to the controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ControllerError {
    /// The intake is full (`try_submit` only; `submit` waits for room).
    Full,
    /// A teardown is in progress.
    Closed,
}

/// A submission that was not accepted, handed back with its payload.
pub struct SubmitError<P: 'static> {
    /// Why.
    pub error: ControllerError,
    /// The submission, untouched.
    pub spec: ControllerSpec<P>,
}

impl<P> core::fmt::Debug for SubmitError<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SubmitError")
            .field("error", &self.error)
            .field("target", &self.spec.target.name)
            .finish()
    }
}

/// What a job runs: one node, or any free member of a pool. Declared as a
/// `static`. The optional inbox is the `ResourceSlot` the controller fills
/// with the job's payload just before the spawn; the node's spawn fn
/// `lend()`s it and the worker keeps it with `into_inner()`.
pub struct JobTarget<P: 'static> {
    name: &'static str,
    kind: TargetKind<P>,
}

enum TargetKind<P: 'static> {
    Node {
        node: &'static TaskNode,
        inbox: Option<&'static ResourceSlot<P>>,
    },
    #[cfg(feature = "pool")]
    Pool {
        pool: &'static dyn crate::pool::Pool,
        inboxes: &'static [ResourceSlot<P>],
    },
}

impl<P: 'static> JobTarget<P> {
    /// A node target without payload delivery (unit jobs).
    pub const fn node(node: &'static TaskNode) -> Self {
        Self {
            name: node.name,
            kind: TargetKind::Node { node, inbox: None },
        }
    }

    /// A node target whose payload is provided into `inbox` before each spawn.
    pub const fn node_with_inbox(node: &'static TaskNode, inbox: &'static ResourceSlot<P>) -> Self {
        Self {
            name: node.name,
            kind: TargetKind::Node {
                node,
                inbox: Some(inbox),
            },
        }
    }

    /// A pool target named `name`: a job lands on a free member, member `i`
    /// receiving its payload in `inboxes[i]` (an empty slice: unit jobs).
    /// At most the pool's `max` members run controller jobs at once.
    #[cfg(feature = "pool")]
    pub const fn pool(
        name: &'static str,
        pool: &'static dyn crate::pool::Pool,
        inboxes: &'static [ResourceSlot<P>],
    ) -> Self {
        Self {
            name,
            kind: TargetKind::Pool { pool, inboxes },
        }
    }

    /// The target's name (the default slot key).
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

/// One submission: a target, its payload, a policy and a slot key.
pub struct ControllerSpec<P: 'static> {
    target: &'static JobTarget<P>,
    payload: P,
    policy: AdmissionPolicy,
    slot: Option<Key>,
}

impl<P: 'static> ControllerSpec<P> {
    const fn with_policy(
        target: &'static JobTarget<P>,
        payload: P,
        policy: AdmissionPolicy,
    ) -> Self {
        Self {
            target,
            payload,
            policy,
            slot: None,
        }
    }

    /// Busy slot: wait in FIFO order.
    pub const fn queue(target: &'static JobTarget<P>, payload: P) -> Self {
        Self::with_policy(target, payload, AdmissionPolicy::Queue)
    }

    /// Busy slot: become the next job, stopping the running one.
    pub const fn replace(target: &'static JobTarget<P>, payload: P) -> Self {
        Self::with_policy(target, payload, AdmissionPolicy::Replace)
    }

    /// Busy slot: reject.
    pub const fn drop_if_running(target: &'static JobTarget<P>, payload: P) -> Self {
        Self::with_policy(target, payload, AdmissionPolicy::DropIfRunning)
    }

    /// Admit through slot `key` instead of the target's name (groups several
    /// targets into one lane).
    pub fn with_slot(mut self, key: impl Into<Key>) -> Self {
        self.slot = Some(key.into());
        self
    }

    /// The slot this submission is admitted through.
    pub const fn slot_name(&self) -> Key {
        match self.slot {
            Some(k) => k,
            None => Key::Name(self.target.name),
        }
    }

    /// The submission's policy.
    pub const fn policy(&self) -> AdmissionPolicy {
        self.policy
    }

    /// The submission's target.
    pub const fn target(&self) -> &'static JobTarget<P> {
        self.target
    }
}

/// Point-in-time view of one slot.
#[derive(Clone, Copy, Debug)]
pub struct SlotView {
    /// The slot's key.
    pub key: Key,
    /// Its status.
    pub status: SlotStatusKind,
    /// The node running (or being started for) the current job.
    pub owner: Option<&'static TaskNode>,
    /// Jobs waiting behind the current one.
    pub queued: usize,
    /// Time since the last status change.
    pub in_status: Duration,
}

/// Point-in-time view of a controller.
#[derive(Clone, Copy, Debug)]
pub struct ControllerSnapshot<const SLOTS: usize> {
    /// One entry per slot in use (a slot keeps its key while Idle, until a
    /// new key needs it).
    pub slots: [Option<SlotView>; SLOTS],
    /// Submissions not yet seen by the driver.
    pub intake: usize,
}

impl<const SLOTS: usize> ControllerSnapshot<SLOTS> {
    /// The view of slot `key`, if it is in use.
    pub fn get(&self, key: impl Into<Key>) -> Option<SlotView> {
        let key = key.into();
        self.slots.iter().flatten().find(|v| v.key == key).copied()
    }
}

/// A pool policy that never grows or shrinks: the members of a pool used as a
/// controller target are started by the controller only.
#[cfg(feature = "pool")]
#[derive(Clone, Copy, Debug, Default)]
pub struct Held;

#[cfg(feature = "pool")]
impl crate::pool::ScalingPolicy for Held {
    fn decide(&mut self, _: crate::pool::PoolLoad, _: Instant) -> crate::pool::Decision {
        crate::pool::Decision {
            action: crate::pool::PoolAction::Hold,
            recheck_at: None,
        }
    }
}

// ---- internals ----------------------------------------------------------

const NO_WATCH: u8 = u8::MAX;

/// A queued job. Kept small: it is the per-queued-job cost.
struct Job<P: 'static> {
    target: &'static JobTarget<P>,
    payload: P,
    watch: u8,
}

/// A submission waiting in the intake.
struct Pending<P: 'static> {
    key: Key,
    policy: AdmissionPolicy,
    job: Job<P>,
}

/// Fixed-capacity FIFO. `Option<T>` costs nothing extra for jobs (the target
/// pointer's niche).
struct Ring<T, const N: usize> {
    buf: [Option<T>; N],
    head: usize,
    len: usize,
}

impl<T, const N: usize> Ring<T, N> {
    const fn new() -> Self {
        Self {
            buf: [const { None }; N],
            head: 0,
            len: 0,
        }
    }

    fn push(&mut self, v: T) -> Result<(), T> {
        if self.len == N {
            return Err(v);
        }
        let mut i = self.head + self.len;
        if i >= N {
            i -= N;
        }
        self.buf[i] = Some(v);
        self.len += 1;
        Ok(())
    }

    fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.head].take();
        self.head += 1;
        if self.head == N {
            self.head = 0;
        }
        self.len -= 1;
        v
    }

    fn front_mut(&mut self) -> Option<&mut T> {
        if self.len == 0 {
            None
        } else {
            self.buf[self.head].as_mut()
        }
    }
}

struct Slot<P: 'static, const D: usize> {
    key: Option<Key>,
    status: SlotStatusKind,
    since: Instant,
    /// The node the current job runs on (set when it is picked for spawn).
    owner: Option<&'static TaskNode>,
    owner_watch: u8,
    owner_inbox: Option<&'static ResourceSlot<P>>,
    /// The driver is awaiting the owner's spawn.
    in_flight: bool,
    /// Arrival order of the current admission (wrapping).
    seq: u32,
    /// Admitting: the job chosen to run, not yet given a node.
    next: Option<Job<P>>,
    queue: Ring<Job<P>, D>,
}

impl<P: 'static, const D: usize> Slot<P, D> {
    const fn new() -> Self {
        Self {
            key: None,
            status: SlotStatusKind::Idle,
            since: Instant::from_ticks(0),
            owner: None,
            owner_watch: NO_WATCH,
            owner_inbox: None,
            in_flight: false,
            seq: 0,
            next: None,
            queue: Ring::new(),
        }
    }

    fn set_status(&mut self, to: SlotStatusKind, now: Instant) {
        if self.status == to {
            return;
        }
        #[cfg(feature = "events")]
        if let Some(slot) = self.key {
            crate::event::publish(crate::event::EventKind::ControllerSlotTransition {
                slot,
                from: self.status,
                to,
            });
        }
        self.status = to;
        self.since = now;
    }

    fn reserves(&self, node: &TaskNode) -> bool {
        self.owner.is_some_and(|o| core::ptr::eq(o, node))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Watch {
    Free,
    Pending,
    Abandoned,
    Done(TaskOutcome),
}

struct State<
    P: 'static,
    const SLOTS: usize,
    const DEPTH: usize,
    const INTAKE: usize,
    const WATCH: usize,
> {
    slots: [Slot<P, DEPTH>; SLOTS],
    intake: Ring<Pending<P>, INTAKE>,
    watch: [Watch; WATCH],
    closed: bool,
    /// Source of `Slot::seq`.
    seq: u32,
    /// Submitters waiting for intake room or a free watch cell.
    room: MultiWakerRegistration<4>,
    /// `submit_and_watch` futures waiting for an outcome.
    watchers: MultiWakerRegistration<4>,
}

/// Keyed admission control over one supervisor's nodes and pools.
///
/// `P`: payload type of every job (`()` for unit jobs). `SLOTS`: lanes.
/// `DEPTH`: queued jobs per lane (beyond the running one). `INTAKE`:
/// submissions buffered before the driver sees them. `WATCH`: concurrently
/// watched submissions (at most 254).
///
/// ```
/// use embassy_supervisor::{Graph, Mode, Supervisor, TaskNode};
/// use embassy_supervisor::controller::{Controller, ControllerSpec, JobTarget};
/// static REINDEX: TaskNode = TaskNode::new("REINDEX", Mode::OnDemand).at(0);
/// static GRAPH: Graph<1> = Graph::new([Some(&REINDEX)], [&[]]);
/// static CTRL: Controller<(), 4, 2> = Controller::new();
/// static SUP: Supervisor<1> = Supervisor::new(&GRAPH).with_controller(&CTRL);
/// static JOB: JobTarget<()> = JobTarget::node(&REINDEX);
/// CTRL.try_submit(ControllerSpec::drop_if_running(&JOB, ())).unwrap();
/// assert_eq!(CTRL.snapshot().intake, 1);
/// ```
pub struct Controller<
    P: 'static = (),
    const SLOTS: usize = 4,
    const DEPTH: usize = 4,
    const INTAKE: usize = 4,
    const WATCH: usize = 4,
> {
    state: Mutex<CriticalSectionRawMutex, RefCell<State<P, SLOTS, DEPTH, INTAKE, WATCH>>>,
}

impl<P: 'static, const SLOTS: usize, const DEPTH: usize, const INTAKE: usize, const WATCH: usize>
    Default for Controller<P, SLOTS, DEPTH, INTAKE, WATCH>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<P: 'static, const SLOTS: usize, const DEPTH: usize, const INTAKE: usize, const WATCH: usize>
    Controller<P, SLOTS, DEPTH, INTAKE, WATCH>
{
    /// An empty controller. Fails const evaluation if `WATCH > 254`.
    pub const fn new() -> Self {
        assert!(
            WATCH < NO_WATCH as usize,
            "a controller watches at most 254 submissions"
        );
        Self {
            state: Mutex::new(RefCell::new(State {
                slots: [const { Slot::new() }; SLOTS],
                intake: Ring::new(),
                watch: [Watch::Free; WATCH],
                closed: false,
                seq: 0,
                room: MultiWakerRegistration::new(),
                watchers: MultiWakerRegistration::new(),
            })),
        }
    }

    /// RAM per queued job (target pointer, watch index, payload).
    pub const QUEUED_JOB_BYTES: usize = core::mem::size_of::<Option<Job<P>>>();
    /// RAM per slot, its `DEPTH` queue included.
    pub const SLOT_BYTES: usize = core::mem::size_of::<Slot<P, DEPTH>>();
    /// RAM per intake entry.
    pub const INTAKE_ENTRY_BYTES: usize = core::mem::size_of::<Option<Pending<P>>>();

    /// Hand `spec` to the controller without waiting: `Err` with the spec
    /// back if the intake is full or a teardown is in progress.
    pub fn try_submit(&self, spec: ControllerSpec<P>) -> Result<(), SubmitError<P>> {
        self.push(spec, NO_WATCH, None)
            .map_err(|(error, spec)| SubmitError { error, spec })
    }

    /// Hand `spec` to the controller, waiting for intake room. `Err` only
    /// while a teardown is in progress (`Closed`).
    pub async fn submit(&self, spec: ControllerSpec<P>) -> Result<(), SubmitError<P>> {
        self.push_waiting(spec, NO_WATCH)
            .await
            .map_err(|spec| SubmitError {
                error: ControllerError::Closed,
                spec,
            })
    }

    /// Submit and wait for the outcome, which arrives exactly once. Waits
    /// first for a free watch cell and intake room. A submission made while
    /// a teardown is in progress resolves `Rejected { ShuttingDown }`.
    /// Dropping the future stops the watching, not the job.
    pub async fn submit_and_watch(&self, spec: ControllerSpec<P>) -> TaskOutcome {
        let mut ticket = WatchTicket {
            state: &self.state,
            idx: self.claim_watch().await,
            submitted: false,
        };
        if self.push_waiting(spec, ticket.idx).await.is_err() {
            return TaskOutcome::Rejected {
                kind: RejectKind::ShuttingDown,
            };
        }
        ticket.submitted = true;
        let idx = ticket.idx as usize;
        poll_fn(|cx| {
            self.state.lock(|s| {
                let mut s = s.borrow_mut();
                match s.watch[idx] {
                    Watch::Done(outcome) => {
                        s.watch[idx] = Watch::Free;
                        s.room.wake();
                        Poll::Ready(outcome)
                    }
                    _ => {
                        s.watchers.register(cx.waker());
                        Poll::Pending
                    }
                }
            })
        })
        .await
    }

    /// A point-in-time view of every slot in use.
    pub fn snapshot(&self) -> ControllerSnapshot<SLOTS> {
        let now = Instant::now();
        self.state.lock(|s| {
            let s = s.borrow();
            let mut slots = [None; SLOTS];
            for (view, slot) in slots.iter_mut().zip(s.slots.iter()) {
                if let Some(key) = slot.key {
                    *view = Some(SlotView {
                        key,
                        status: slot.status,
                        owner: slot.owner,
                        queued: slot.queue.len,
                        in_status: now.checked_duration_since(slot.since).unwrap_or_default(),
                    });
                }
            }
            ControllerSnapshot {
                slots,
                intake: s.intake.len,
            }
        })
    }

    async fn claim_watch(&self) -> u8 {
        poll_fn(|cx| {
            self.state.lock(|s| {
                let mut s = s.borrow_mut();
                match s.watch.iter().position(|w| *w == Watch::Free) {
                    Some(i) => {
                        s.watch[i] = Watch::Pending;
                        Poll::Ready(i as u8)
                    }
                    None => {
                        s.room.register(cx.waker());
                        Poll::Pending
                    }
                }
            })
        })
        .await
    }

    /// Push into the intake, waiting for room; `Err(spec)` if closed.
    async fn push_waiting(
        &self,
        spec: ControllerSpec<P>,
        watch: u8,
    ) -> Result<(), ControllerSpec<P>> {
        let mut held = Some(spec);
        poll_fn(|cx| {
            // A completed poll_fn is never polled again, so `held` is always
            // `Some` here.
            let Some(spec) = held.take() else {
                return Poll::Pending;
            };
            match self.push(spec, watch, Some(cx)) {
                Ok(()) => Poll::Ready(Ok(())),
                Err((ControllerError::Closed, spec)) => Poll::Ready(Err(spec)),
                Err((ControllerError::Full, spec)) => {
                    held = Some(spec);
                    Poll::Pending
                }
            }
        })
        .await
    }

    fn push(
        &self,
        spec: ControllerSpec<P>,
        watch: u8,
        cx: Option<&mut core::task::Context<'_>>,
    ) -> Result<(), (ControllerError, ControllerSpec<P>)> {
        let key = spec.slot_name();
        let result = self.state.lock(|s| {
            let mut s = s.borrow_mut();
            if s.closed {
                return Err((ControllerError::Closed, spec));
            }
            if s.intake.len == INTAKE {
                if let Some(cx) = cx {
                    s.room.register(cx.waker());
                }
                return Err((ControllerError::Full, spec));
            }
            #[cfg(feature = "events")]
            crate::event::publish(crate::event::EventKind::ControllerSubmitted {
                slot: key,
                target: spec.target.name,
                policy: spec.policy,
            });
            let pending = Pending {
                key,
                policy: spec.policy,
                job: Job {
                    target: spec.target,
                    payload: spec.payload,
                    watch,
                },
            };
            // Room was checked under the same lock.
            let _ = s.intake.push(pending);
            Ok(())
        });
        if result.is_ok() {
            notify::changed();
        }
        result
    }
}

/// A claimed watch cell, released on drop: free if the submission never
/// reached the intake or its outcome is already here, abandoned (freed by
/// the resolver) otherwise.
struct WatchTicket<'a, P: 'static, const S: usize, const D: usize, const I: usize, const W: usize> {
    state: &'a Mutex<CriticalSectionRawMutex, RefCell<State<P, S, D, I, W>>>,
    idx: u8,
    submitted: bool,
}

impl<P: 'static, const S: usize, const D: usize, const I: usize, const W: usize> Drop
    for WatchTicket<'_, P, S, D, I, W>
{
    fn drop(&mut self) {
        let idx = self.idx as usize;
        let submitted = self.submitted;
        self.state.lock(|s| {
            let mut s = s.borrow_mut();
            match s.watch[idx] {
                Watch::Pending if submitted => s.watch[idx] = Watch::Abandoned,
                Watch::Free => {}
                _ => {
                    s.watch[idx] = Watch::Free;
                    s.room.wake();
                }
            }
        });
    }
}

// ---- the slot machine (driver side) --------------------------------------

impl<P: 'static, const SLOTS: usize, const DEPTH: usize, const INTAKE: usize, const WATCH: usize>
    State<P, SLOTS, DEPTH, INTAKE, WATCH>
{
    fn resolve(&mut self, watch: u8, outcome: TaskOutcome) {
        let Some(cell) = self.watch.get_mut(watch as usize) else {
            return;
        };
        match *cell {
            Watch::Pending => {
                *cell = Watch::Done(outcome);
                self.watchers.wake();
            }
            Watch::Abandoned => {
                *cell = Watch::Free;
                self.room.wake();
            }
            Watch::Free | Watch::Done(_) => {}
        }
    }

    fn reject(&mut self, key: Key, job: Job<P>, kind: RejectKind) {
        #[cfg(feature = "events")]
        crate::event::publish(crate::event::EventKind::ControllerRejected {
            slot: key,
            target: job.target.name,
            kind,
        });
        let _ = key;
        self.resolve(job.watch, TaskOutcome::Rejected { kind });
    }

    /// Slot `i` has no job any more: take the next queued one, or go idle.
    fn advance(&mut self, i: usize, now: Instant) {
        let slot = &mut self.slots[i];
        slot.owner = None;
        slot.owner_watch = NO_WATCH;
        slot.owner_inbox = None;
        slot.next = slot.queue.pop();
        let to = if slot.next.is_some() {
            SlotStatusKind::Admitting
        } else {
            SlotStatusKind::Idle
        };
        slot.set_status(to, now);
        self.seq = self.seq.wrapping_add(1);
        slot.seq = self.seq;
    }

    /// Apply every intake submission's policy, in submission order.
    fn drain_intake(&mut self, now: Instant) {
        let mut drained = false;
        while let Some(p) = self.intake.pop() {
            drained = true;
            self.admit(p, now);
        }
        if drained {
            self.room.wake();
        }
    }

    fn slot_for(&mut self, key: Key) -> Option<usize> {
        if let Some(i) = self.slots.iter().position(|s| s.key == Some(key)) {
            return Some(i);
        }
        let i = self
            .slots
            .iter()
            .position(|s| s.key.is_none())
            .or_else(|| {
                self.slots
                    .iter()
                    .position(|s| s.status == SlotStatusKind::Idle)
            })?;
        self.slots[i].key = Some(key);
        Some(i)
    }

    fn admit(&mut self, p: Pending<P>, now: Instant) {
        let Some(i) = self.slot_for(p.key) else {
            return self.reject(p.key, p.job, RejectKind::NoFreeSlot);
        };
        let slot = &mut self.slots[i];
        if slot.status == SlotStatusKind::Idle {
            slot.next = Some(p.job);
            slot.set_status(SlotStatusKind::Admitting, now);
            self.seq = self.seq.wrapping_add(1);
            slot.seq = self.seq;
            return;
        }
        match p.policy {
            AdmissionPolicy::DropIfRunning => self.reject(p.key, p.job, RejectKind::SlotBusy),
            AdmissionPolicy::Queue => {
                if let Err(job) = slot.queue.push(p.job) {
                    self.reject(p.key, job, RejectKind::QueueFull);
                }
            }
            AdmissionPolicy::Replace => {
                // Latest wins: the job that would run next is the admitting
                // one (not yet on a node) if there is one, else the queue head.
                let (bumped, kind) = if let Some(next) = slot.next.as_mut() {
                    (
                        Some(core::mem::replace(next, p.job)),
                        RejectKind::SupersededByReplace,
                    )
                } else if let Some(head) = slot.queue.front_mut() {
                    (
                        Some(core::mem::replace(head, p.job)),
                        RejectKind::SupersededByReplace,
                    )
                } else {
                    // No room (DEPTH == 0) bounces the newcomer itself.
                    (slot.queue.push(p.job).err(), RejectKind::QueueFull)
                };
                let kept = kind == RejectKind::SupersededByReplace || bumped.is_none();
                if kept
                    && slot.status == SlotStatusKind::Running
                    && let Some(owner) = slot.owner
                {
                    owner.request_shutdown();
                    slot.set_status(SlotStatusKind::Terminating, now);
                }
                if let Some(old) = bumped {
                    self.reject(p.key, old, kind);
                }
            }
        }
    }

    /// Resolve every owner whose node is down and advance its slot.
    fn sweep(&mut self, now: Instant) {
        for i in 0..SLOTS {
            let slot = &self.slots[i];
            let Some(owner) = slot.owner else { continue };
            if slot.in_flight || owner.is_running() {
                continue;
            }
            let outcome = if owner.shutdown_requested() {
                TaskOutcome::Canceled
            } else {
                TaskOutcome::Completed
            };
            let watch = slot.owner_watch;
            self.resolve(watch, outcome);
            self.advance(i, now);
        }
    }

    fn reserved(&self, node: &TaskNode) -> bool {
        self.slots.iter().any(|s| s.reserves(node))
    }

    /// Pick one admitting job that can start now, reserve its node, and hand
    /// it out with its payload delivery. Jobs whose target cannot run at all
    /// are resolved on the way.
    fn pick(&mut self, now: Instant) -> Option<(Admission, Delivery<P>)> {
        // Oldest admission first, so jobs waiting for pool members are
        // granted in arrival order, whatever their slots' indices.
        let mut waiting = [false; SLOTS];
        loop {
            let mut best: Option<usize> = None;
            for (i, slot) in self.slots.iter().enumerate() {
                if slot.owner.is_none()
                    && slot.next.is_some()
                    && !waiting[i]
                    && best.is_none_or(|b| (slot.seq.wrapping_sub(self.slots[b].seq) as i32) < 0)
                {
                    best = Some(i);
                }
            }
            let i = best?;
            let Some(job) = self.slots[i].next.as_ref() else {
                continue;
            };
            let key = self.slots[i].key.unwrap_or(Key::Name(job.target.name));
            match self.choose(job.target) {
                Choice::Wait => waiting[i] = true,
                Choice::Refuse(outcome) => {
                    if let Some(job) = self.slots[i].next.take() {
                        match outcome {
                            TaskOutcome::Rejected { kind } => self.reject(key, job, kind),
                            other => self.resolve(job.watch, other),
                        }
                    }
                    self.advance(i, now);
                }
                Choice::Run(node, inbox) => {
                    let slot = &mut self.slots[i];
                    let job = slot.next.take()?;
                    slot.owner = Some(node);
                    slot.owner_watch = job.watch;
                    slot.owner_inbox = inbox;
                    slot.in_flight = true;
                    let delivery = inbox.map(|inbox| (inbox, job.payload));
                    return Some((Admission { slot: i, node }, delivery));
                }
            }
        }
    }

    fn choose(&self, target: &'static JobTarget<P>) -> Choice<P> {
        match target.kind {
            TargetKind::Node { node, inbox } => {
                if node.is_disabled() || node.is_detached() {
                    Choice::Refuse(TaskOutcome::Rejected {
                        kind: RejectKind::TargetDisabled,
                    })
                } else if node.is_running() || self.reserved(node) {
                    Choice::Refuse(TaskOutcome::Rejected {
                        kind: RejectKind::AlreadyRunning,
                    })
                } else if !node.has_spawn() || node.mode() == Mode::Pause {
                    Choice::Refuse(TaskOutcome::Failed)
                } else {
                    Choice::Run(node, inbox)
                }
            }
            #[cfg(feature = "pool")]
            TargetKind::Pool { pool, inboxes } => {
                let (_, max) = pool.bounds();
                let members = pool.nodes();
                let mut active = 0usize;
                let mut usable = false;
                let mut free = None;
                for (m, node) in members.iter().enumerate() {
                    let busy = node.is_running() || self.reserved(node);
                    active += busy as usize;
                    let enabled = !node.is_disabled() && !node.is_detached();
                    usable |= enabled && node.has_spawn() && node.mode() != Mode::Pause;
                    if free.is_none()
                        && !busy
                        && enabled
                        && node.has_spawn()
                        && node.mode() != Mode::Pause
                    {
                        free = Some(m);
                    }
                }
                if !usable {
                    return Choice::Refuse(TaskOutcome::Rejected {
                        kind: RejectKind::TargetDisabled,
                    });
                }
                match free {
                    Some(m) if active < max as usize => Choice::Run(&members[m], inboxes.get(m)),
                    _ => Choice::Wait,
                }
            }
        }
    }

    /// The driver's spawn of slot `i` finished.
    fn admitted(
        &mut self,
        i: usize,
        result: Result<(), SpawnError>,
        now: Instant,
    ) -> Option<&'static ResourceSlot<P>> {
        let slot = &mut self.slots[i];
        slot.in_flight = false;
        match result {
            Ok(()) => {
                slot.set_status(SlotStatusKind::Running, now);
                if self.closed
                    && let Some(owner) = slot.owner
                {
                    // The teardown may already have passed this node.
                    owner.request_shutdown();
                    slot.set_status(SlotStatusKind::Terminating, now);
                }
                None
            }
            Err(_) => {
                let inbox = slot.owner_inbox;
                let watch = slot.owner_watch;
                self.resolve(watch, TaskOutcome::Failed);
                self.advance(i, now);
                inbox
            }
        }
    }

    fn close(&mut self, now: Instant) {
        self.closed = true;
        while let Some(p) = self.intake.pop() {
            self.reject(p.key, p.job, RejectKind::ShuttingDown);
        }
        self.room.wake();
        for i in 0..SLOTS {
            let key = self.slots[i].key.unwrap_or(Key::Id(u32::MAX));
            while let Some(job) = self.slots[i].queue.pop() {
                self.reject(key, job, RejectKind::ShuttingDown);
            }
            if let Some(job) = self.slots[i].next.take() {
                self.reject(key, job, RejectKind::ShuttingDown);
            }
            if self.slots[i].owner.is_none() {
                self.slots[i].set_status(SlotStatusKind::Idle, now);
            }
        }
    }
}

/// A payload on its way into an inbox.
type Delivery<P> = Option<(&'static ResourceSlot<P>, P)>;

enum Choice<P: 'static> {
    #[cfg_attr(not(feature = "pool"), allow(dead_code))]
    Wait,
    Refuse(TaskOutcome),
    Run(&'static TaskNode, Option<&'static ResourceSlot<P>>),
}

mod sealed {
    use super::*;

    /// One admission handed to the driver: spawn `node` for slot `slot`.
    #[derive(Clone, Copy)]
    pub struct Admission {
        pub slot: usize,
        pub node: &'static TaskNode,
    }

    /// The driver's view of a controller (object-safe, non-generic, so the
    /// supervisor holds any controller behind one reference).
    pub trait Drive {
        /// Apply submissions and resolve owners that are down; then, if
        /// `admit`, pick the next job to start.
        fn next_admission(&self, admit: bool) -> Option<Admission>;
        fn admitted(&self, a: Admission, result: Result<(), SpawnError>);
        fn close(&self);
        fn reopen(&self);
    }
}
use sealed::{Admission, Drive};

/// A controller the supervisor can drive (implemented by [`Controller`]).
pub trait DriveController: Drive + Sync {}

impl<P: Send + 'static, const S: usize, const D: usize, const I: usize, const W: usize> Drive
    for Controller<P, S, D, I, W>
{
    fn next_admission(&self, admit: bool) -> Option<Admission> {
        let now = Instant::now();
        let (admission, delivery) = self.state.lock(|s| {
            let mut s = s.borrow_mut();
            s.drain_intake(now);
            s.sweep(now);
            if admit { s.pick(now) } else { None }
        })?;
        if let Some((inbox, payload)) = delivery {
            inbox.provide(payload);
        }
        Some(admission)
    }

    fn admitted(&self, a: Admission, result: Result<(), SpawnError>) {
        let now = Instant::now();
        let inbox = self
            .state
            .lock(|s| s.borrow_mut().admitted(a.slot, result, now));
        // A failed spawn put the payload back (the `Lent` guard); take it
        // out so no later spawn of that node runs a job nobody queued.
        if let Some(inbox) = inbox {
            drop(inbox.take());
        }
    }

    fn close(&self) {
        let now = Instant::now();
        self.state.lock(|s| s.borrow_mut().close(now));
    }

    fn reopen(&self) {
        let now = Instant::now();
        self.state.lock(|s| {
            let mut s = s.borrow_mut();
            s.sweep(now);
            s.closed = false;
        });
    }
}

impl<P: Send + 'static, const S: usize, const D: usize, const I: usize, const W: usize>
    DriveController for Controller<P, S, D, I, W>
{
}

/// Reports an admission the driver could not finish (its future was dropped
/// mid-spawn) as failed, so the slot is never left reserved.
struct AdmitGuard {
    ctrl: &'static dyn DriveController,
    admission: Option<Admission>,
}

impl AdmitGuard {
    fn finish(mut self, result: Result<(), SpawnError>) {
        if let Some(a) = self.admission.take() {
            self.ctrl.admitted(a, result);
        }
    }
}

impl Drop for AdmitGuard {
    fn drop(&mut self) {
        if let Some(a) = self.admission.take() {
            self.ctrl.admitted(a, Err(SpawnError::Busy));
        }
    }
}

/// Held by `teardown`: closes the controller (queued work resolves
/// `ShuttingDown`) and, when dropped, resolves the owners that went down and
/// reopens it.
pub(crate) struct Closing(Option<&'static dyn DriveController>);

impl Closing {
    pub(crate) fn new(ctrl: Option<&'static dyn DriveController>) -> Self {
        if let Some(c) = ctrl {
            c.close();
        }
        Self(ctrl)
    }
}

impl Drop for Closing {
    fn drop(&mut self) {
        if let Some(c) = self.0 {
            c.reopen();
        }
    }
}

impl<const N: usize> Supervisor<N> {
    /// Drive `ctrl` from [`run`](Self::run). One controller per supervisor.
    pub const fn with_controller(mut self, ctrl: &'static dyn DriveController) -> Self {
        self.controller = Some(ctrl);
        self
    }

    /// One controller pass: apply submissions, resolve owners that are
    /// down, start every job that can start. Called by `run` after each
    /// change (the notify epoch), never on a timer.
    pub(crate) async fn drive_controller(&self, spawner: Spawner) {
        let Some(ctrl) = self.controller else { return };
        // A torn-down graph starts nothing until it is started again (as
        // pools do not regrow): jobs wait in their slots meanwhile.
        while let Some(a) = ctrl.next_admission(!self.is_halted()) {
            let guard = AdmitGuard {
                ctrl,
                admission: Some(a),
            };
            let result = self.bring_up(a.node, spawner).await;
            guard.finish(result);
        }
    }
}
