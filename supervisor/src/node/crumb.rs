//! Where the breadcrumb (feature `breadcrumb`) is recorded: each node's last
//! phase and the binary's oldest transition still in flight (or, with none,
//! its last), packed in one word. It lives with the node because every
//! transition writes it; the public decoding side is [`crate::breadcrumb`],
//! which sits above the node and graph.
//!
//! The transitions in flight (a bring-up waiting in `Spawning`, a stop
//! waiting in `Stopping`) form one list, oldest first, linked through the
//! nodes themselves: a wait that begins joins at the newest end, one that
//! ends leaves from wherever it is, and the word names the oldest. Each is
//! O(1) (two links in the node, no scan), in one critical section, so the
//! list stays whole across cores. Bring-up and stop waves run unrelated
//! nodes at once; so a node that hung is named for as long as it hangs,
//! however many others start and finish waiting meanwhile.

use core::cell::Cell;

use crate::sync::{AtomicU32, Ordering};
use critical_section::{CriticalSection, Mutex};

use super::{TaskNode, flag};
use crate::phase::Phase;

/// The top half of every recorded word. A word without it is not a
/// breadcrumb: uninitialised RAM after a cold boot decodes to `None` unless
/// its top 16 bits happen to match (1 in 65536).
pub(crate) const TAG: u32 = 0xB5C7 << 16;

/// The word: the oldest transition in flight, else the last one; `0` until
/// the first.
static LAST: AtomicU32 = AtomicU32::new(0);

/// The ends of the list of transitions in flight.
static FLIGHT: Mutex<Cell<Ends>> = Mutex::new(Cell::new(Ends {
    oldest: None,
    newest: None,
}));

#[derive(Clone, Copy)]
struct Ends {
    oldest: Option<&'static TaskNode>,
    newest: Option<&'static TaskNode>,
}

/// A node's neighbours in the list (both `None` when it is not in it, or
/// is all of it).
#[derive(Clone, Copy)]
struct Link {
    older: Option<&'static TaskNode>,
    newer: Option<&'static TaskNode>,
}

const UNLINKED: Link = Link {
    older: None,
    newer: None,
};

/// A node's place in the list of transitions in flight: 2 words of RAM,
/// with the feature only. (The node's phase byte is a field of its own, so
/// it stays in the node's padding.)
pub(crate) struct Links(Mutex<Cell<Link>>);

impl Links {
    pub(crate) const fn new() -> Self {
        Self(Mutex::new(Cell::new(UNLINKED)))
    }

    fn get(&self, cs: CriticalSection<'_>) -> Link {
        self.0.borrow(cs).get()
    }

    fn set(&self, cs: CriticalSection<'_>, link: Link) {
        self.0.borrow(cs).set(link);
    }
}

/// Tag in bits 16..32, slot in bits 8..16, phase in bits 0..8.
pub(crate) const fn pack(slot: u8, phase: Phase) -> u32 {
    TAG | (slot as u32) << 8 | phase as u32
}

/// The packed breadcrumb word (see
/// [`Breadcrumb::to_word`](crate::breadcrumb::Breadcrumb::to_word)), `0`
/// before the first transition: the oldest transition still in flight (a
/// bring-up waiting for its gates, a stop waiting for its ack) if there is
/// one, else the last transition. One relaxed load, callable from anywhere
/// (a watchdog feeder, a panic or fault handler).
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

/// Record `node` entering `phase`, a phase that ends its wait if it was in
/// one (or begins none).
// Out of line (flash): every transition site calls it.
#[inline(never)]
pub(crate) fn record(node: &TaskNode, phase: Phase) {
    critical_section::with(|cs| update(cs, node, phase, None));
}

/// Record `node` beginning to wait in `phase` (`Spawning`, `Stopping`): it
/// joins the list as its newest member. A stop of a node that is already
/// down (or a bring-up of one already up) has nothing to wait for and does
/// not join; checked inside the critical section, so an ack on another core
/// either came first or leaves the list after this.
#[inline(never)]
pub(crate) fn record_wait(node: &'static TaskNode, phase: Phase) {
    critical_section::with(|cs| {
        let up = node.flags() & flag::RUNNING != 0;
        let waits = (phase == Phase::Stopping) == up;
        update(cs, node, phase, waits.then_some(node));
    });
}

/// A bring-up that recorded `Spawning` for `node` ended without recording
/// how (its future was dropped mid-wait): its wait leaves the list, so it
/// does not stand for a hang. Nothing if the node moved on since.
#[inline(never)]
pub(crate) fn abandon(node: &TaskNode) {
    let spawning = || node.crumb.load(Ordering::Relaxed) == Phase::Spawning as u8;
    if !spawning() {
        return;
    }
    critical_section::with(|cs| {
        if !spawning() {
            return;
        }
        let mut ends = FLIGHT.borrow(cs).get();
        if unlink(cs, &mut ends, node) {
            FLIGHT.borrow(cs).set(ends);
            if let Some(oldest) = ends.oldest {
                LAST.store(
                    pack(oldest.spec().index, oldest.last_phase()),
                    Ordering::Relaxed,
                );
            }
        }
    });
}

/// Held by a bring-up that may wait in `Spawning`: if it is dropped before
/// it recorded how the wait ended, [`abandon`] takes the wait out of the
/// list.
pub(crate) struct Abandon(pub(crate) &'static TaskNode);

impl Drop for Abandon {
    fn drop(&mut self) {
        abandon(self.0);
    }
}

/// The one update: `node`'s phase, its place in the list (out of it, then
/// in at the newest end if `joins`), the word.
fn update(
    cs: CriticalSection<'_>,
    node: &TaskNode,
    phase: Phase,
    joins: Option<&'static TaskNode>,
) {
    node.crumb.store(phase as u8, Ordering::Relaxed);
    let cell = FLIGHT.borrow(cs);
    let mut ends = cell.get();
    unlink(cs, &mut ends, node);
    if let Some(n) = joins {
        n.crumb_links.set(
            cs,
            Link {
                older: ends.newest,
                newer: None,
            },
        );
        match ends.newest {
            Some(newest) => set_newer(cs, newest, Some(n)),
            None => ends.oldest = Some(n),
        }
        ends.newest = Some(n);
    }
    cell.set(ends);
    let word = match ends.oldest {
        Some(oldest) => pack(oldest.spec().index, oldest.last_phase()),
        None => pack(node.spec().index, phase),
    };
    LAST.store(word, Ordering::Relaxed);
}

/// Take `node` out of the list if it is in it; `true` if it was.
fn unlink(cs: CriticalSection<'_>, ends: &mut Ends, node: &TaskNode) -> bool {
    let link = node.crumb_links.get(cs);
    let oldest = ends.oldest.is_some_and(|o| core::ptr::eq(o, node));
    if link.older.is_none() && !oldest {
        return false;
    }
    match link.older {
        Some(older) => set_newer(cs, older, link.newer),
        None => ends.oldest = link.newer,
    }
    match link.newer {
        Some(newer) => newer.crumb_links.set(
            cs,
            Link {
                older: link.older,
                ..newer.crumb_links.get(cs)
            },
        ),
        None => ends.newest = link.older,
    }
    node.crumb_links.set(cs, UNLINKED);
    true
}

fn set_newer(cs: CriticalSection<'_>, node: &TaskNode, newer: Option<&'static TaskNode>) {
    node.crumb_links.set(
        cs,
        Link {
            newer,
            ..node.crumb_links.get(cs)
        },
    );
}
