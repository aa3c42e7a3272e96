//! The lifecycle sink (feature `lifecycle-sink`): one application callback
//! called synchronously on every driven transition, with the node, the
//! [`Phase`] it entered and the time. No queue, so nothing is ever dropped or
//! delayed; the [`event`](crate::event) stream is the buffered alternative.
//!
//! The callback runs in the context that made the transition: the
//! supervisor's task for its verbs, the node's own task for `ack_dropped` and
//! `mark_exited` (possibly on another executor or core), and sometimes inside
//! a critical section (a stop the controller requests while it holds its
//! state). Keep it short and non-blocking: count, store a word, push to a
//! ring; do not call the controller from it.
//!
//! ```
//! use embassy_supervisor::{Phase, TaskNode, set_lifecycle_sink};
//! fn on_transition(node: &TaskNode, phase: Phase, at: embassy_time::Instant) {
//!     let _ = (node.name, phase, at);
//! }
//! assert!(set_lifecycle_sink(Some(on_transition)).is_none());
//! ```

use core::cell::Cell;

use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_time::Instant;

use super::TaskNode;
use crate::phase::Phase;

/// The application's transition callback: the node, the phase it entered,
/// and when (embassy-time clock).
pub type LifecycleSink = fn(&TaskNode, Phase, Instant);

static SINK: Mutex<CriticalSectionRawMutex, Cell<Option<LifecycleSink>>> =
    Mutex::new(Cell::new(None));

/// Install `sink` (or remove the sink with `None`); returns the one it
/// replaced. Transitions made while none is installed are not replayed.
pub fn set_lifecycle_sink(sink: Option<LifecycleSink>) -> Option<LifecycleSink> {
    SINK.lock(|s| s.replace(sink))
}

/// Call the sink, if one is installed, outside the critical section that
/// reads it: the callback may take locks of its own.
// Out of line (flash): every transition site calls it.
#[inline(never)]
pub(crate) fn deliver(node: &TaskNode, phase: Phase) {
    if let Some(sink) = SINK.lock(Cell::get) {
        sink(node, phase, Instant::from_ticks(crate::clock::now()));
    }
}
