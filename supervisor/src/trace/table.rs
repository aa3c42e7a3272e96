//! Attribution: which node a task id belongs to, in O(1).
//!
//! The executor's hooks name a task only by its id (the address of its task
//! header). A bounded open-addressing table maps that id to a graph slot:
//! a lookup probes at most [`MAX_PROBES`] entries, hit or miss, so
//! attributing a poll costs the same at any graph size, takes no lock, and
//! an unsupervised task (a miss) costs no more than a supervised one.
//!
//! Entries are never removed: an id is the address of a task's storage,
//! which is static, so the set of ids is as fixed as the set of task
//! storages. A respawn into another storage adds that id; a storage reused
//! by another node overwrites its entry's value.

use crate::sync::{AtomicU16, AtomicU32, Ordering};
use embassy_sync::once_lock::OnceLock;

use crate::TaskNode;

use super::{MAX_GRAPHS, MAX_TASKS};

/// The longest probe sequence. A task whose id finds no free entry within it
/// is not attributed (counted in [`super::untracked`]). Sixteen, not eight:
/// task storages sit at a fixed stride, and with eight a 72-task table
/// (the host test's) lost 9 tasks once the storages grew by 28 bytes; a miss
/// still stops at the first empty entry, so the usual cost is one or two reads.
pub(crate) const MAX_PROBES: usize = 16;

/// "No node": an entry whose value is not written yet, or a task that ended.
const NONE: u16 = u16::MAX;

/// A graph as the recorders see it: its nodes by slot.
pub trait TracedGraph: Sync {
    /// The node in slot `i`, if present.
    fn traced_node(&self, i: usize) -> Option<&'static TaskNode>;
    /// The number of slots.
    fn slots(&self) -> usize;
}

static GRAPHS: [OnceLock<&'static dyn TracedGraph>; MAX_GRAPHS] =
    [const { OnceLock::new() }; MAX_GRAPHS];

static IDS: [AtomicU32; MAX_TASKS] = [const { AtomicU32::new(0) }; MAX_TASKS];
/// Per entry: graph number in the high byte, slot in the low byte.
static AT: [AtomicU16; MAX_TASKS] = [const { AtomicU16::new(NONE) }; MAX_TASKS];

static UNTRACKED: AtomicU32 = AtomicU32::new(0);

fn graph(g: usize) -> Option<&'static dyn TracedGraph> {
    GRAPHS.get(g)?.try_get().copied()
}

/// Fibonacci hashing of the id's address bits (the low two are always zero).
fn home(id: u32) -> usize {
    ((id >> 2).wrapping_mul(0x9E37_79B9) >> (32 - MAX_TASKS.trailing_zeros())) as usize
}

const _: () = assert!(MAX_TASKS.is_power_of_two() && MAX_TASKS <= 1 << 16);

fn probe(id: u32) -> impl Iterator<Item = usize> {
    let h = home(id);
    (0..MAX_PROBES).map(move |i| (h + i) % MAX_TASKS)
}

/// The entry of `id`, if it has one.
fn find(id: u32) -> Option<usize> {
    lookup(id).0
}

/// The entry of `id`, if any, and how many entries the lookup read.
fn lookup(id: u32) -> (Option<usize>, usize) {
    for (read, e) in probe(id).enumerate() {
        match IDS[e].load(Ordering::Acquire) {
            x if x == id => return (Some(e), read + 1),
            0 => return (None, read + 1),
            _ => {}
        }
    }
    (None, MAX_PROBES)
}

/// How many table entries attributing a poll of task `id` reads.
pub(crate) fn lookup_cost(id: u32) -> usize {
    lookup(id).1
}

/// The entry of `id`, claiming a free one if it has none.
fn find_or_claim(id: u32) -> Option<usize> {
    for e in probe(id) {
        match IDS[e].compare_exchange(0, id, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return Some(e),
            Err(x) if x == id => return Some(e),
            Err(_) => {}
        }
    }
    None
}

/// The node task `id` runs, if it is a supervised task in a registered graph.
pub(crate) fn node_of(id: u32) -> Option<&'static TaskNode> {
    if id == 0 {
        return None;
    }
    let at = AT[find(id)?].load(Ordering::Acquire);
    if at == NONE {
        return None;
    }
    graph((at >> 8) as usize)?.traced_node((at & 0xFF) as usize)
}

/// Record that task `id` runs `node`. A node whose graph is not registered
/// yet keeps only its id; registering the graph enters it.
pub(crate) fn bind(node: &'static TaskNode, id: u32) {
    node.trace_state().task_id.store(id, Ordering::Release);
    if let Some(at) = locate(node) {
        enter(id, at);
    }
}

/// A task ended: its storage may next run something else.
pub(crate) fn unbind(id: u32) {
    if let Some(e) = find(id) {
        AT[e].store(NONE, Ordering::Release);
    }
}

fn enter(id: u32, at: u16) {
    if id == 0 {
        return;
    }
    match find_or_claim(id) {
        Some(e) => AT[e].store(at, Ordering::Release),
        None => {
            UNTRACKED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// `node`'s graph number and slot, among the registered graphs: O(MAX_GRAPHS).
fn locate(node: &'static TaskNode) -> Option<u16> {
    let slot = node.index as usize;
    (0..MAX_GRAPHS).find_map(|g| {
        let n = graph(g)?.traced_node(slot)?;
        core::ptr::eq(n, node).then_some(((g as u16) << 8) | slot as u16)
    })
}

/// Register `g` (idempotent); enter every node of it that already has a
/// task (an `adopt` before `start`). `false` if all [`MAX_GRAPHS`] entries
/// hold other graphs.
pub(crate) fn register(g: &'static dyn TracedGraph) -> bool {
    let same = |other: &&'static dyn TracedGraph| {
        core::ptr::addr_eq(
            *other as *const dyn TracedGraph,
            g as *const dyn TracedGraph,
        )
    };
    for (number, cell) in GRAPHS.iter().enumerate() {
        let registered = match cell.try_get() {
            Some(other) => same(other),
            None => match cell.init(g) {
                Ok(()) => {
                    enter_graph(g, number);
                    true
                }
                // Another core registered a graph here meanwhile.
                Err(_) => cell.try_get().is_some_and(same),
            },
        };
        if registered {
            return true;
        }
    }
    false
}

fn enter_graph(g: &'static dyn TracedGraph, number: usize) {
    for slot in 0..g.slots() {
        if let Some(node) = g.traced_node(slot) {
            let id = node.trace_state().task_id.load(Ordering::Acquire);
            enter(id, ((number as u16) << 8) | slot as u16);
        }
    }
}

pub(crate) fn untracked() -> u32 {
    UNTRACKED.load(Ordering::Relaxed)
}
