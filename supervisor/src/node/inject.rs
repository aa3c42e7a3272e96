//! Fault injection (feature `fault-inject`): make a running node misbehave on
//! purpose, from outside its task, to prove that the supervisor (and the
//! application around it) handles the failure.
//!
//! The request is one atomic word on the node ([`TaskNode::inject`],
//! [`TaskNode::clear_fault`]); the fault itself is acted out by the
//! [`with_faults`](TaskNode::with_faults) wrapper that every generated task
//! shell puts around its worker, so the worker's own code is unchanged and
//! what the supervisor sees is exactly what a real stuck, deaf or dead task
//! looks like. Without the feature none of this exists: no field, no wrapper,
//! no code.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::sync::{AtomicU32, Ordering};

use super::{NodeWait, TaskNode};

/// A fault to act out in a node's task ([`TaskNode::inject`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Fault {
    /// The worker is no longer polled: it makes no progress, its heartbeats
    /// stop (the liveness monitor reports it stale) and it never sees a stop
    /// (a stop times out with the missed-ack error). Lasts until
    /// [`clear_fault`](TaskNode::clear_fault); the worker then resumes where
    /// it was.
    Stall,
    /// The worker runs on, but once a stop is requested it is no longer
    /// polled: it never sees the stop and never acks it (the stop times out
    /// with the missed-ack error). Lasts until
    /// [`clear_fault`](TaskNode::clear_fault); the worker then sees the stop
    /// and acks late. A stop the worker already saw is not taken back.
    Wedge,
    /// At its next poll (the injection wakes it) the task drops its worker
    /// future, with everything the worker held, and exits: the node reads
    /// as exited without a stop, and as failed (`has_failed()`: a node with
    /// `restart: on_failure` is restarted, feature `restart`). An `exit:`
    /// node's slot stays empty, as after a stop, so a waiter can tell a crash
    /// from a finish. One-shot: consumed by the crash.
    Crash,
    /// At its next poll (the injection wakes it) the task busy-spins this
    /// many embassy-time ticks before polling the worker, once: a poll that
    /// never yields, for the `trace` poll statistics and an executor
    /// watchdog to catch. At most [`Fault::MAX_HOG_TICKS`] (more is
    /// clamped). One-shot: consumed by the spin. On embassy-time's mock
    /// clock the spin ends only when another thread advances the clock.
    /// (`tests/fault_inject.rs` runs one that way.)
    Hog(u32),
}

impl Fault {
    /// The longest [`Hog`](Fault::Hog) one injection can ask for (29 bits of
    /// the node's fault word): about 537 s at embassy-time's default 1 MHz
    /// tick.
    pub const MAX_HOG_TICKS: u32 = u32::MAX >> KIND_BITS;
}

/// The low bits of the word say which fault; a `Hog`'s ticks sit above them.
const KIND_BITS: u32 = 3;
const NONE: u32 = 0;
const STALL: u32 = 1;
const WEDGE: u32 = 2;
const CRASH: u32 = 3;
const HOG: u32 = 4;

fn encode(fault: Fault) -> u32 {
    match fault {
        Fault::Stall => STALL,
        Fault::Wedge => WEDGE,
        Fault::Crash => CRASH,
        Fault::Hog(ticks) => (ticks.min(Fault::MAX_HOG_TICKS) << KIND_BITS) | HOG,
    }
}

fn decode(word: u32) -> Option<Fault> {
    match word & ((1 << KIND_BITS) - 1) {
        STALL => Some(Fault::Stall),
        WEDGE => Some(Fault::Wedge),
        CRASH => Some(Fault::Crash),
        HOG => Some(Fault::Hog(word >> KIND_BITS)),
        _ => None,
    }
}

/// The node's injected fault: one word, written with plain atomic stores, so
/// `inject` and `clear_fault` need no read-modify-write.
pub(crate) struct FaultCell(AtomicU32);

impl FaultCell {
    pub(crate) const fn new() -> Self {
        Self(AtomicU32::new(NONE))
    }

    fn load(&self) -> u32 {
        self.0.load(Ordering::Acquire)
    }

    /// Consume a one-shot fault: `true` if `word` was still the fault (a
    /// concurrent `inject` or `clear_fault` wins).
    fn take(&self, word: u32) -> bool {
        self.0
            .compare_exchange(word, NONE, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

impl TaskNode {
    /// Act out `fault` in this node's task (see [`Fault`] for each). Callable
    /// from anywhere: another task, another executor or core, an interrupt.
    /// Replaces a fault injected before.
    ///
    /// One atomic store, then a wake of the node's task so a `Crash` or
    /// `Hog` acts at once. The wake is the one a stop request makes: the
    /// node's waker sits behind a short critical section, so it is
    /// interrupt-safe but not lock-free on every core.
    ///
    /// `Err(NoFaultShell)` (nothing injected) if the node's task does not
    /// act faults out: only generated `task:` shells and tasks marked
    /// [`NodeSpec::with_fault_shell`](crate::NodeSpec::with_fault_shell) run
    /// their body through [`with_faults`](Self::with_faults).
    ///
    /// A rehearsal on the host (with the test kit): a crash reads as an
    /// exit; a wedged node's stop is the missed-ack error until the fault is
    /// cleared.
    ///
    /// ```
    /// use embassy_executor::Spawner;
    /// use embassy_futures::join::join;
    /// use embassy_supervisor::{Fault, SHUTDOWN_ACK_TIMEOUT, Supervisor, supervisor_graph};
    /// use embassy_supervisor_testkit as kit;
    /// use embassy_time::Duration;
    ///
    /// supervisor_graph! {
    ///     node PUMP = Terminate, task: kit::serve;
    /// }
    /// static SUP: Supervisor<1> = Supervisor::new(&GRAPH);
    ///
    /// #[embassy_executor::task]
    /// async fn rehearse(spawner: Spawner) {
    ///     SUP.start(spawner).await.unwrap();
    ///     PUMP.inject(Fault::Crash).unwrap();
    ///     kit::settle().await;
    ///     assert!(PUMP.has_exited() && !PUMP.shutdown_requested());
    ///
    ///     SUP.start_node(&PUMP, spawner).await.unwrap();
    ///     PUMP.inject(Fault::Wedge).unwrap();
    ///     let (r, ()) = join(
    ///         SUP.stop_node(&PUMP),
    ///         kit::advance_after_idle(SHUTDOWN_ACK_TIMEOUT),
    ///     )
    ///     .await;
    ///     assert_eq!(r.unwrap_err().node.name, "PUMP");
    ///     PUMP.clear_fault(); // it sees the stop now, and acks late
    ///     kit::wait_until(|| !PUMP.is_running(), Duration::from_millis(10))
    ///         .await
    ///         .unwrap();
    ///     kit::pass();
    /// }
    /// # fn main() {
    /// kit::run(&[&PUMP], |s| s.spawn(rehearse(s).unwrap()));
    /// # }
    /// ```
    pub fn inject(&'static self, fault: Fault) -> Result<(), NoFaultShell> {
        if !self.spec.fault_shell {
            return Err(NoFaultShell { node: self });
        }
        self.fault.0.store(encode(fault), Ordering::Release);
        self.wake_task();
        Ok(())
    }

    /// Lift the injected fault: a stalled or wedged worker is polled again
    /// (a wedged one then sees the pending stop and acks it late). A
    /// one-shot fault not yet acted out is cancelled.
    pub fn clear_fault(&self) {
        self.fault.0.store(NONE, Ordering::Release);
        self.wake_task();
    }

    /// The fault injected and not yet cleared or consumed.
    pub fn fault(&self) -> Option<Fault> {
        decode(self.fault.load())
    }

    /// Run `work` (a task's whole per-activation body) with the faults
    /// injected into this node acted out around it. `Err(Crashed)` if a
    /// [`Fault::Crash`] dropped it. Generated `task:` shells call it; a
    /// hand-written task opts in by awaiting its body through it and marking
    /// its spec [`with_fault_shell`](crate::NodeSpec::with_fault_shell).
    ///
    /// Costs, with the feature on: a load of the fault word per poll, and
    /// per poll that leaves the work pending a check that the task's waker
    /// is registered with the node (so an injection can wake it).
    pub fn with_faults<F: Future>(
        &self,
        work: F,
    ) -> impl Future<Output = Result<F::Output, Crashed>> {
        WithFaults {
            work: Some(work),
            fault: NodeWait::new(self),
        }
    }

    /// The worker must not be polled now: stalled, or wedged with a stop
    /// to hide.
    fn withholds_polls(&self) -> bool {
        match self.fault.load() {
            STALL => true,
            WEDGE => self.shutdown_requested(),
            _ => false,
        }
    }

    /// A fault that acts at the next poll is waiting (a `Crash` or a `Hog`).
    fn fault_acts_now(&self) -> bool {
        matches!(self.fault.load() & ((1 << KIND_BITS) - 1), CRASH | HOG)
    }
}

pin_project_lite::pin_project! {
    /// The future behind [`TaskNode::with_faults`]: the work, and the place
    /// its task waits in while a fault withholds it.
    struct WithFaults<'a, F> {
        // `None` once dropped by a crash or finished.
        #[pin]
        work: Option<F>,
        // Where the task waits to learn of an injection.
        #[pin]
        fault: NodeWait<'a>,
    }
}

impl<F: Future> Future for WithFaults<'_, F> {
    type Output = Result<F::Output, Crashed>;

    // Only the work's poll is generic; the fault handling around it is out
    // of line, one copy for every shell (flash).
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        match before_poll(this.fault.as_mut(), cx) {
            Step::Crash => {
                this.work.set(None);
                return Poll::Ready(Err(Crashed));
            }
            Step::Withheld => return Poll::Pending,
            Step::Poll => {}
        }
        let Some(work) = this.work.as_mut().as_pin_mut() else {
            // Polled after completion: the contract says never; stay put.
            return Poll::Pending;
        };
        if let Poll::Ready(v) = work.poll(cx) {
            this.work.set(None);
            return Poll::Ready(Ok(v));
        }
        after_pending(this.fault, cx);
        Poll::Pending
    }
}

/// What a poll of [`WithFaults`] does with its work.
enum Step {
    /// Drop it: a crash was injected (and is now consumed).
    Crash,
    /// Leave it: a fault withholds it (the task is registered to be woken).
    Withheld,
    /// Poll it (after a hog's spin, if one was injected).
    Poll,
}

/// Act out the injected fault before a poll of the work.
#[inline(never)]
fn before_poll(mut fault: Pin<&mut NodeWait<'_>>, cx: &mut Context<'_>) -> Step {
    let node = fault.node();
    loop {
        let word = node.fault.load();
        match decode(word) {
            Some(Fault::Crash) if node.fault.take(word) => return Step::Crash,
            Some(Fault::Hog(ticks)) if node.fault.take(word) => hog(ticks),
            _ => {}
        }
        if !node.withholds_polls() {
            return Step::Poll;
        }
        // Withheld: sleep until `inject`/`clear_fault` wakes the task (a
        // stop or resume wakes it too; it re-checks and sleeps on).
        if !fault.as_mut().until_around(cx, |n| !n.withholds_polls()) {
            return Step::Withheld;
        }
    }
}

/// While the work waits on anything else, stay reachable for an injection
/// that must act at once (a crash, a hog).
#[inline(never)]
fn after_pending(fault: Pin<&mut NodeWait<'_>>, cx: &mut Context<'_>) {
    if fault.until_around(cx, TaskNode::fault_acts_now) {
        cx.waker().wake_by_ref();
    }
}

/// The `Hog` fault: a poll that does not yield for `ticks` embassy-time
/// ticks. This busy-wait is the injected fault itself, bounded by the ticks
/// asked for; nothing else in the crate spins.
fn hog(ticks: u32) {
    let end = crate::clock::now().saturating_add(u64::from(ticks));
    while crate::clock::now() < end {
        core::hint::spin_loop();
    }
}

/// [`TaskNode::inject`] into a node whose task does not act faults out (a
/// `spawn:` node, or a hand-built one not marked
/// [`with_fault_shell`](crate::NodeSpec::with_fault_shell)): nothing was
/// injected.
#[derive(Clone, Copy)]
pub struct NoFaultShell {
    /// The node.
    pub node: &'static TaskNode,
}

impl fmt::Debug for NoFaultShell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NoFaultShell")
            .field("node", &self.node.name)
            .finish()
    }
}

impl fmt::Display for NoFaultShell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "node `{}` has no task shell that acts out injected faults",
            self.node.name
        )
    }
}

impl PartialEq for NoFaultShell {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(self.node, other.node)
    }
}

impl core::error::Error for NoFaultShell {}

#[cfg(feature = "defmt")]
impl defmt::Format for NoFaultShell {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(
            f,
            "node `{=str}` has no task shell that acts out injected faults",
            self.node.name
        )
    }
}

/// Returned by [`TaskNode::with_faults`] when an injected [`Fault::Crash`]
/// dropped the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Crashed;

impl fmt::Display for Crashed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("dropped by an injected crash")
    }
}

impl core::error::Error for Crashed {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fault_round_trips_through_the_word() {
        for f in [
            Fault::Stall,
            Fault::Wedge,
            Fault::Crash,
            Fault::Hog(0),
            Fault::Hog(1),
            Fault::Hog(Fault::MAX_HOG_TICKS),
        ] {
            assert_eq!(decode(encode(f)), Some(f));
        }
        assert_eq!(decode(NONE), None);
        assert_eq!(
            decode(encode(Fault::Hog(u32::MAX))),
            Some(Fault::Hog(Fault::MAX_HOG_TICKS))
        );
    }
}
