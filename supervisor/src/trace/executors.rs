//! Per-executor accounting: where an executor's time goes (idle, inside
//! task polls, the rest), its poll and pass counters, and its in-flight poll.
//!
//! Each executor's hooks run on that executor only, so every counter has one
//! writer; readers on any core or interrupt see atomics.

use crate::sync::{AtomicU8, AtomicU32, Ordering};

use super::{MAX_EXECUTORS, add, ticks};

pub(crate) struct Slot {
    /// The executor's id (0: free).
    id: AtomicU32,
    first_seen: AtomicU32,
    /// Since when the executor is idle, if [`state`](Self::state) says so.
    idle_since: AtomicU32,
    state: AtomicU8,
    idle: AtomicU32,
    in_poll: AtomicU32,
    supervised: AtomicU32,
    polls: AtomicU32,
    passes: AtomicU32,
    wakes: AtomicU32,
    /// The task being polled (0: none) and when its poll began.
    current: AtomicU32,
    poll_start: AtomicU32,
    /// The core's nested-poll total when this poll began (`trace-nested`).
    #[cfg(feature = "trace-nested")]
    nested_at_start: AtomicU32,
}

const UNKNOWN: u8 = 0;
const IDLE: u8 = 1;
const BUSY: u8 = 2;

impl Slot {
    const fn new() -> Self {
        Self {
            id: AtomicU32::new(0),
            first_seen: AtomicU32::new(0),
            idle_since: AtomicU32::new(0),
            state: AtomicU8::new(UNKNOWN),
            idle: AtomicU32::new(0),
            in_poll: AtomicU32::new(0),
            supervised: AtomicU32::new(0),
            polls: AtomicU32::new(0),
            passes: AtomicU32::new(0),
            wakes: AtomicU32::new(0),
            current: AtomicU32::new(0),
            poll_start: AtomicU32::new(0),
            #[cfg(feature = "trace-nested")]
            nested_at_start: AtomicU32::new(0),
        }
    }
}

static SLOTS: [Slot; MAX_EXECUTORS] = [const { Slot::new() }; MAX_EXECUTORS];

static UNTRACKED: AtomicU32 = AtomicU32::new(0);

/// The slot of executor `id`, claiming a free one on first sight:
/// O(MAX_EXECUTORS). `None` (counted) once every slot holds another executor.
pub(crate) fn slot(id: u32) -> Option<&'static Slot> {
    for s in &SLOTS {
        match s.id.load(Ordering::Acquire) {
            x if x == id => return Some(s),
            0 => match s
                .id
                .compare_exchange(0, id, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    s.first_seen.store(ticks(), Ordering::Relaxed);
                    return Some(s);
                }
                Err(x) if x == id => return Some(s),
                Err(_) => {}
            },
            _ => {}
        }
    }
    UNTRACKED.fetch_add(1, Ordering::Relaxed);
    None
}

impl Slot {
    pub(crate) fn poll_start(&self) {
        let now = ticks();
        if self.state.load(Ordering::Relaxed) == IDLE {
            add(
                &self.idle,
                now.wrapping_sub(self.idle_since.load(Ordering::Relaxed)),
            );
        }
        self.state.store(BUSY, Ordering::Relaxed);
        add(&self.passes, 1);
    }

    pub(crate) fn idle(&self) {
        self.idle_since.store(ticks(), Ordering::Relaxed);
        self.state.store(IDLE, Ordering::Release);
    }

    pub(crate) fn woke(&self) {
        self.wakes.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn exec_begin(&self, task: u32) {
        #[cfg(feature = "trace-nested")]
        self.nested_at_start
            .store(super::nested::total(), Ordering::Relaxed);
        self.poll_start.store(ticks(), Ordering::Relaxed);
        self.current.store(task, Ordering::Release);
    }

    /// End the in-flight poll; returns its duration (with `trace-nested`,
    /// less the nested polls that interrupted it), or `None` if no poll was
    /// seen to begin (hooks installed mid-poll).
    pub(crate) fn exec_end(&self, supervised: bool) -> Option<u32> {
        if self.current.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let took = ticks().wrapping_sub(self.poll_start.load(Ordering::Relaxed));
        #[cfg(feature = "trace-nested")]
        let took = super::nested::exclusive(took, self.nested_at_start.load(Ordering::Relaxed));
        self.current.store(0, Ordering::Release);
        add(&self.in_poll, took);
        add(&self.polls, 1);
        if supervised {
            add(&self.supervised, took);
        }
        Some(took)
    }

    fn stats(&self, now: u32) -> ExecutorStats {
        let idle_now = self.state.load(Ordering::Acquire) == IDLE;
        let mut idle = self.idle.load(Ordering::Relaxed);
        if idle_now {
            idle = idle.wrapping_add(now.wrapping_sub(self.idle_since.load(Ordering::Relaxed)));
        }
        ExecutorStats {
            executor_id: self.id.load(Ordering::Acquire),
            elapsed_ticks: now.wrapping_sub(self.first_seen.load(Ordering::Relaxed)),
            idle_ticks: idle,
            in_poll_ticks: self.in_poll.load(Ordering::Relaxed),
            supervised_ticks: self.supervised.load(Ordering::Relaxed),
            polls: self.polls.load(Ordering::Relaxed),
            passes: self.passes.load(Ordering::Relaxed),
            wakes: self.wakes.load(Ordering::Relaxed),
        }
    }

    fn in_flight(&self, now: u32) -> Option<InFlight> {
        let task_id = self.current.load(Ordering::Acquire);
        if task_id == 0 {
            return None;
        }
        Some(InFlight {
            task_id,
            node: super::table::node_of(task_id),
            ticks: now.wrapping_sub(self.poll_start.load(Ordering::Relaxed)),
        })
    }
}

/// Where one executor's time went since its first traced poll. Every figure
/// is a wrapping `u32` of embassy-time ticks or a wrapping count: sample
/// twice and subtract with `wrapping_sub`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExecutorStats {
    /// The executor's id, as the hooks report it.
    pub executor_id: u32,
    /// Ticks since the executor's first traced pass.
    pub elapsed_ticks: u32,
    /// Ticks spent idle (between a pass's end and the next pass's start).
    pub idle_ticks: u32,
    /// Ticks spent inside task polls, supervised or not.
    pub in_poll_ticks: u32,
    /// The part of `in_poll_ticks` spent polling supervised nodes.
    pub supervised_ticks: u32,
    /// Task polls.
    pub polls: u32,
    /// Scheduler passes (wake-ups of the executor).
    pub passes: u32,
    /// Task wakes that made a task ready to run on this executor.
    pub wakes: u32,
}

impl ExecutorStats {
    /// Ticks that were neither idle nor in a poll: scheduler bookkeeping, the
    /// hooks' own cost, and interrupts taken between polls.
    pub fn overhead_ticks(&self) -> u32 {
        self.elapsed_ticks
            .wrapping_sub(self.idle_ticks)
            .wrapping_sub(self.in_poll_ticks)
    }

    /// Ticks spent polling tasks that are not supervised nodes.
    pub fn unsupervised_ticks(&self) -> u32 {
        self.in_poll_ticks.wrapping_sub(self.supervised_ticks)
    }
}

/// A poll in progress on an executor.
#[derive(Clone, Copy, Debug)]
pub struct InFlight {
    /// The task being polled.
    pub task_id: u32,
    /// Its node, if it is a supervised task of a registered graph.
    pub node: Option<&'static crate::TaskNode>,
    /// How long the poll has run so far, in ticks.
    pub ticks: u32,
}

/// Statistics of the `index`-th traced executor (in order of first sight),
/// `None` if fewer executors were seen.
pub fn executor_stats(index: usize) -> Option<ExecutorStats> {
    let s = SLOTS.get(index)?;
    (s.id.load(Ordering::Acquire) != 0).then(|| s.stats(ticks()))
}

/// The poll in progress on the `index`-th traced executor, if any.
pub fn current_task(index: usize) -> Option<InFlight> {
    SLOTS.get(index)?.in_flight(ticks())
}

/// The poll in progress on the `index`-th traced executor if it has run
/// longer than `threshold_ticks`: a task that does not yield. Call it from a
/// context that still runs while that executor is stuck (a higher-priority
/// executor, a timer interrupt, another core).
pub fn stalled_task(index: usize, threshold_ticks: u32) -> Option<InFlight> {
    current_task(index).filter(|f| f.ticks > threshold_ticks)
}

/// Hook calls from executors beyond [`MAX_EXECUTORS`]; they are not counted.
pub fn untracked_executors() -> u32 {
    UNTRACKED.load(Ordering::Relaxed)
}
