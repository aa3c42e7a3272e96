//! Writes and reads made through the node: a write is the node's heartbeat
//! (feature `liveness`) and, on a `ready_on_write` node, its readiness
//! (feature `readiness`). O(1): a clock read and a store for the beat, one
//! flag load for the readiness once it is set.

use super::Publish;
use crate::TaskNode;

impl TaskNode {
    /// Write `value` into `signal` as this node, and count the write as
    /// the node's sign of life: its [`beat`](TaskNode::beat) (so a producer
    /// with a `beat_timeout:` that stops producing goes stale, with no
    /// `beat()` call of its own) and, on a `ready_on_write` node, its first
    /// write as [`set_ready`](TaskNode::set_ready) (so `deps: [X ready]`
    /// means "X has produced"). Returns what the signal's write reports
    /// (`Channel`: `Err` when full; the attempt still counts: the producer
    /// is alive).
    ///
    /// ```
    /// use embassy_supervisor::{Mode, NodeSpec, TaskNode};
    /// use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
    /// use embassy_sync::signal::Signal;
    /// static SAMPLE: Signal<CriticalSectionRawMutex, u32> = Signal::new();
    /// static SENSOR: TaskNode = TaskNode::new(&NodeSpec::new("SENSOR", Mode::Terminate));
    /// SENSOR.publish(&SAMPLE, 7);
    /// assert_eq!(SAMPLE.try_take(), Some(7));
    /// ```
    pub fn publish<S: Publish + ?Sized>(&self, signal: &S, value: S::Value) -> S::Outcome {
        let outcome = signal.publish(value);
        self.wrote();
        outcome
    }

    /// Hand `signal` back for a write its own API makes (an awaited
    /// `Channel::send`, a `fetch_add`), counting it as a write now, as
    /// [`publish`](TaskNode::publish) does. Take it per write, not once: the
    /// beat is the moment of the call.
    pub fn writer<'s, S: ?Sized>(&self, signal: &'s S) -> &'s S {
        self.wrote();
        signal
    }

    /// Hand `signal` back for a read. Costs nothing: it names the read at
    /// the call site, beside the node's writes.
    #[inline(always)]
    pub fn reader<'s, S: ?Sized>(&self, signal: &'s S) -> &'s S {
        signal
    }

    /// A write through the node: the beat, then the readiness once.
    fn wrote(&self) {
        #[cfg(feature = "liveness")]
        self.beat();
        #[cfg(feature = "readiness")]
        if self.spec().ready_on_write && !self.is_ready() {
            self.set_ready();
        }
    }
}

#[cfg(feature = "readiness")]
impl crate::NodeSpec {
    /// The node's first write through it ([`TaskNode::publish`],
    /// [`TaskNode::writer`]) in each activation marks it ready. The macro's
    /// `ready_on_write` clause.
    pub const fn with_ready_on_write(mut self) -> Self {
        self.ready_on_write = true;
        self
    }

    /// Whether the node's first write marks it ready.
    pub const fn ready_on_write(&self) -> bool {
        self.ready_on_write
    }
}
