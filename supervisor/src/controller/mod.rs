//! Keyed admission control (feature `controller`): submissions share lanes
//! ("slots") and a policy decides what happens when a lane is busy.
//!
//! A submission ([`ControllerSpec`]) carries a job: a [`JobTarget`] (a node,
//! or a pool's members) and a payload the worker receives through the
//! target's inbox, a `ResourceSlot` filled just before the spawn. Slots are
//! keyed by [`Key`] (default: the target's name). The [`Controller`] is a
//! `static` with compile-time capacities, handed to the supervisor with
//! [`Supervisor::with_controller`](crate::Supervisor::with_controller); `Supervisor::run` drives it.
//!
//! Invariants: at most one running job per slot; a queued job touches no node
//! until it owns its slot; `Queue` is FIFO; `Replace` is latest-wins for the
//! next job; a slot advances only after its owner's node is observed down;
//! every accepted submission resolves exactly once for a watcher. See
//! `docs/controller.md` for the design.

use crate::{ResourceSlot, TaskNode, notify};
use core::cell::RefCell;
use core::future::poll_fn;
use core::task::Poll;
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::waitqueue::WakerRegistration;
use embassy_time::Instant;
use maitake_sync::WaitQueue;

mod drive;
mod machine;
mod spec;

use crate::controller_port::Admission;
pub use crate::controller_port::DriveController;
pub use spec::*;

// ---- internals ----------------------------------------------------------

/// A queued job. Kept small: it is the per-queued-job cost.
struct Job<P: 'static> {
    target: &'static JobTarget<P>,
    payload: P,
    /// The watch cell that receives the outcome, if watched.
    watch: Option<u8>,
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
    owner_watch: Option<u8>,
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
            owner_watch: None,
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
    /// Per watch cell, the one `submit_and_watch` future that holds it: a
    /// resolution wakes exactly its watcher.
    watchers: [WakerRegistration; WATCH],
    closed: bool,
    /// Source of `Slot::seq`.
    seq: u32,
    /// Intake room or a watch cell was freed: the controller wakes the
    /// submitters waiting for room once the state lock is released.
    room_freed: bool,
}

/// Keyed admission control over one supervisor's nodes and pools.
///
/// `P`: payload type of every job (`()` for unit jobs). `SLOTS`: lanes.
/// `DEPTH`: queued jobs per lane (beyond the running one). `INTAKE`:
/// submissions buffered before the driver sees them. `WATCH`: concurrently
/// watched submissions (at most 256; more fails to compile). Any number of
/// tasks may wait for intake room or a watch cell: each waits in its own
/// future, woken when room is freed, never polled meanwhile.
///
/// ```
/// use embassy_supervisor::{Graph, Mode, Supervisor, NodeSpec, TaskNode};
/// use embassy_supervisor::controller::{Controller, ControllerSpec, JobTarget};
/// static REINDEX: TaskNode = TaskNode::new(&NodeSpec::new("REINDEX", Mode::OnDemand).at(0));
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
    /// Submitters waiting for intake room or a free watch cell (an
    /// intrusive list: no capacity to overflow).
    room: WaitQueue,
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
    /// An empty controller. Fails const evaluation if `WATCH > 256`.
    pub const fn new() -> Self {
        assert!(
            WATCH <= u8::MAX as usize + 1,
            "a controller watches at most 256 submissions (watch cells are indexed by u8)"
        );
        Self {
            state: Mutex::new(RefCell::new(State {
                slots: [const { Slot::new() }; SLOTS],
                intake: Ring::new(),
                watch: [Watch::Free; WATCH],
                watchers: [const { WakerRegistration::new() }; WATCH],
                closed: false,
                seq: 0,
                room_freed: false,
            })),
            room: WaitQueue::new(),
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
        self.push(spec, None)
            .map_err(|(error, spec)| SubmitError { error, spec })
    }

    /// Hand `spec` to the controller, waiting for intake room. `Err` only
    /// while a teardown is in progress (`Closed`).
    pub async fn submit(&self, spec: ControllerSpec<P>) -> Result<(), SubmitError<P>> {
        self.push_waiting(spec, None)
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
            ctrl: self,
            idx: self.claim_watch().await,
            submitted: false,
        };
        if self.push_waiting(spec, Some(ticket.idx)).await.is_err() {
            return TaskOutcome::Rejected {
                kind: RejectKind::ShuttingDown,
            };
        }
        ticket.submitted = true;
        let idx = ticket.idx as usize;
        poll_fn(|cx| {
            self.with_state(|s| match s.watch[idx] {
                Watch::Done(outcome) => {
                    s.watch[idx] = Watch::Free;
                    s.room_freed = true;
                    Poll::Ready(outcome)
                }
                _ => {
                    s.watchers[idx].register(cx.waker());
                    Poll::Pending
                }
            })
        })
        .await
    }

    /// Run `f` on the state under its lock, then wake the submitters
    /// waiting for room if `f` freed some.
    fn with_state<R>(&self, f: impl FnOnce(&mut State<P, SLOTS, DEPTH, INTAKE, WATCH>) -> R) -> R {
        let (r, freed) = self.state.lock(|s| {
            let mut s = s.borrow_mut();
            let r = f(&mut s);
            (r, core::mem::take(&mut s.room_freed))
        });
        if freed {
            self.room.wake_all();
        }
        r
    }

    /// A point-in-time view of every slot in use.
    pub fn snapshot(&self) -> ControllerSnapshot<SLOTS> {
        let now = Instant::from_ticks(crate::clock::now());
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
        loop {
            // Created before the check: it sees every wake after this point.
            let room = self.room.wait();
            let claimed = self.with_state(|s| {
                let i = s.watch.iter().position(|w| *w == Watch::Free)?;
                s.watch[i] = Watch::Pending;
                Some(i as u8)
            });
            if let Some(i) = claimed {
                return i;
            }
            let _ = room.await;
        }
    }

    /// Push into the intake, waiting for room; `Err(spec)` if closed.
    async fn push_waiting(
        &self,
        mut spec: ControllerSpec<P>,
        watch: Option<u8>,
    ) -> Result<(), ControllerSpec<P>> {
        loop {
            // Created before the attempt: it sees every wake after this point.
            let room = self.room.wait();
            match self.push(spec, watch) {
                Ok(()) => return Ok(()),
                Err((ControllerError::Closed, spec)) => return Err(spec),
                Err((ControllerError::Full, back)) => spec = back,
            }
            let _ = room.await;
        }
    }

    fn push(
        &self,
        spec: ControllerSpec<P>,
        watch: Option<u8>,
    ) -> Result<(), (ControllerError, ControllerSpec<P>)> {
        let key = spec.slot_name();
        let result = self.with_state(|s| {
            if s.closed {
                return Err((ControllerError::Closed, spec));
            }
            if s.intake.len == INTAKE {
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
    ctrl: &'a Controller<P, S, D, I, W>,
    idx: u8,
    submitted: bool,
}

impl<P: 'static, const S: usize, const D: usize, const I: usize, const W: usize> Drop
    for WatchTicket<'_, P, S, D, I, W>
{
    fn drop(&mut self) {
        let idx = self.idx as usize;
        let submitted = self.submitted;
        let waker = self.ctrl.with_state(|s| {
            match s.watch[idx] {
                Watch::Pending if submitted => s.watch[idx] = Watch::Abandoned,
                Watch::Free => {}
                _ => {
                    s.watch[idx] = Watch::Free;
                    s.room_freed = true;
                }
            }
            // The watch ends here and its waker goes with it: the cell's
            // next watcher would wake it when registering, and a wake of a
            // task that has ended queues its storage (a spawn into it then
            // fails `Busy` until the executor's next pass).
            core::mem::replace(&mut s.watchers[idx], WakerRegistration::new())
        });
        // Dropped outside the lock: a waker's drop may run any code.
        drop(waker);
    }
}
