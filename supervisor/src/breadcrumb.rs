//! The breadcrumb (feature `breadcrumb`): the last [`Phase`] a supervisor
//! drove each node into, and one packed `u32` naming the oldest transition
//! still in flight (a bring-up waiting for its gates, `Spawning`; a stop
//! waiting for its ack, `Stopping`), or the last transition when none is, so
//! a watchdog reset can be traced to the node that hung bring-up or
//! teardown.
//!
//! Bring-up and stop waves run unrelated nodes at the same time, so the last
//! transition is often a node that did nothing wrong. The waits in flight
//! form one list, oldest first, kept through the nodes (two links each):
//! joining, leaving and naming the oldest are O(1) per transition, with no
//! scan of the graph, in one short critical section. A node that hangs is
//! named for as long as it hangs, whatever starts and finishes meanwhile; a
//! bring-up dropped mid-wait leaves the list. [`TaskNode::last_phase`] stays
//! exact for every node; with several graphs the word names a slot of one of
//! them. Off, the feature costs nothing; on, 8 bytes of RAM per node on
//! 32-bit targets.
//!
//! Stash [`word`] somewhere that survives the reset (a no-init RAM section, a
//! retained register) as often as the watchdog is fed, and decode it on the
//! next boot:
//!
//! ```
//! use embassy_supervisor::breadcrumb::{self, Breadcrumb};
//! use embassy_supervisor::{Graph, Mode, NodeSpec, Phase, TaskNode};
//! static NET: TaskNode = TaskNode::new(&NodeSpec::new("NET", Mode::Terminate).at(0));
//! static GRAPH: Graph<1> = Graph::new([Some(&NET)], [&[]]);
//!
//! let stashed: u32 = breadcrumb::word(); // before the reset
//! // ... after it:
//! match Breadcrumb::decode(stashed) {
//!     Some(crumb) => {
//!         let name = crumb.node(&GRAPH).map_or("?", |n| n.name);
//!         let _ = (name, crumb.phase);
//!     }
//!     None => { /* nothing recorded, or not a breadcrumb (a cold boot) */ }
//! }
//! # assert_eq!(Breadcrumb::decode(Breadcrumb { slot: 0, phase: Phase::Stopping }.to_word()).unwrap().node(&GRAPH).unwrap().name, "NET");
//! ```

use crate::node::crumb::{TAG, pack};
use crate::phase::Phase;
use crate::{Graph, TaskNode};

pub use crate::node::crumb::word;

/// One transition: the node's slot (its `NodeSpec::at` index, which
/// `supervisor_graph!` sets) and the phase it entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Breadcrumb {
    /// The node's slot in its graph.
    pub slot: u8,
    /// The phase it entered.
    pub phase: Phase,
}

impl Breadcrumb {
    /// The packed form: tag in bits 16..32, slot in bits 8..16, phase in bits 0..8.
    pub const fn to_word(self) -> u32 {
        pack(self.slot, self.phase)
    }

    /// Unpack a word written by [`to_word`](Self::to_word) (or read from
    /// [`word`]); `None` for `0`, a word without the tag, or an unknown phase.
    pub const fn decode(word: u32) -> Option<Self> {
        if word & 0xFFFF_0000 != TAG {
            return None;
        }
        match Phase::from_u8(word as u8) {
            Some(phase) => Some(Self {
                slot: (word >> 8) as u8,
                phase,
            }),
            None => None,
        }
    }

    /// The last transition recorded in this run, if any.
    pub fn last() -> Option<Self> {
        Self::decode(word())
    }

    /// The node in this breadcrumb's slot of `graph`. In a binary with
    /// several graphs the word does not say which one it came from.
    pub fn node<const N: usize>(self, graph: &Graph<N>) -> Option<&'static TaskNode> {
        graph.node(self.slot as usize)
    }
}
