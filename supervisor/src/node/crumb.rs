//! Where the breadcrumb (feature `breadcrumb`) is recorded: each node's last
//! phase and the binary's last transition, packed in one word. It lives with
//! the node because every transition writes it; the public decoding side is
//! [`crate::breadcrumb`], which sits above the node and graph.

use portable_atomic::{AtomicU32, Ordering};

use super::TaskNode;
use crate::phase::Phase;

/// The top half of every recorded word. A word without it is not a
/// breadcrumb: uninitialised RAM after a cold boot decodes to `None` unless
/// its top 16 bits happen to match (1 in 65536).
pub(crate) const TAG: u32 = 0xB5C7 << 16;

/// The last transition of the binary, packed; `0` until the first one.
static LAST: AtomicU32 = AtomicU32::new(0);

/// Tag in bits 16..32, slot in bits 8..16, phase in bits 0..8.
pub(crate) const fn pack(slot: u8, phase: Phase) -> u32 {
    TAG | (slot as u32) << 8 | phase as u32
}

/// The packed last transition of the binary (see
/// [`Breadcrumb::to_word`](crate::breadcrumb::Breadcrumb::to_word)), `0`
/// before the first: one relaxed load, callable from anywhere (a watchdog
/// feeder, a panic or fault handler).
pub fn word() -> u32 {
    LAST.load(Ordering::Relaxed)
}

impl TaskNode {
    /// The last phase a supervisor drove this node into ([`Phase::Idle`]
    /// until the first), for a post-mortem dump of the whole graph.
    pub fn last_phase(&self) -> Phase {
        Phase::from_u8(self.crumb.load(Ordering::Relaxed)).unwrap_or(Phase::Idle)
    }
}

/// Record `node` entering `phase`: a relaxed store in the node, and the
/// binary's word unless that would hide another node still waiting.
///
/// Waves bring up and stop unrelated nodes at the same time, so the last
/// transition is often an unrelated node while the one a watchdog reset is
/// about still waits for its gate or ack. So no transition replaces a word
/// that names a *different* node in a waiting phase (`Spawning`,
/// `Stopping`): the word names the first node to start waiting until that
/// node moves on. One load and a compare more than a blind store, still no
/// read-modify-write (the same cost on Cortex-M0); two transitions racing
/// on two cores may lose one, as the word is a diagnostic.
// Out of line (flash): every transition site calls it.
#[inline(never)]
pub(crate) fn record(node: &TaskNode, phase: Phase) {
    node.crumb.store(phase as u8, Ordering::Relaxed);
    let slot = node.spec().index;
    let last = LAST.load(Ordering::Relaxed);
    let other = (last >> 8) as u8 != slot;
    if last & 0xFFFF_0000 == TAG && other && waits(last as u8) {
        return;
    }
    LAST.store(pack(slot, phase), Ordering::Relaxed);
}

/// The phase code is one a node waits in (for its gates, for its ack).
const fn waits(code: u8) -> bool {
    code == Phase::Spawning as u8 || code == Phase::Stopping as u8
}
