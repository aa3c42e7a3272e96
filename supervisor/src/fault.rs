//! [`NodeFault`]: the one error every verb returns. It names the node and
//! says what went wrong ([`FaultKind`]), so a field log can tell a missed ack
//! from an empty resource slot, an unpublished executor, a `ready` dependency
//! that never came up, a full task pool or a refusal.
//!
//! Three words on a 32-bit target (the node, the kind's tag and its one-word
//! payload); `Result<(), NodeFault>` is no larger (`Ok` is a spare value of
//! the kind's tag). The `Display` and `defmt::Format` impls are linked only if
//! used.

use core::fmt;

use embassy_executor::SpawnError;

use crate::TaskNode;
use crate::error::ShutdownTimeout;

/// What went wrong with a node, and which node: the error of every verb
/// (`start`, `teardown`, `activate`, `deactivate`, `restart`, …) and, in a
/// [`RunError`], what [`Supervisor::run`](crate::Supervisor::run) returns.
///
/// ```
/// # use embassy_supervisor::{FaultKind, Mode, NodeFault, NodeSpec, TaskNode};
/// static RADIO: TaskNode = TaskNode::new(&NodeSpec::new("radio", Mode::Terminate));
/// let fault = NodeFault::new(&RADIO, FaultKind::AckMissed);
/// assert_eq!(fault.to_string(), "node `radio` missed its shutdown ack");
/// ```
#[derive(Clone, Copy)]
// `repr(C)` puts the node first and the kind's tag after it: moving a fault
// out of a future (where `Ok` is a spare tag value) is then whole-word
// copies; with the tag first, the bytes after it went through a `memcpy`
// call at `opt-level = "s"` (730 B of flash on a build that links no other).
#[repr(C)]
pub struct NodeFault {
    /// The node it happened to (for a `ready` dependency that never came up,
    /// the node that waited for it).
    pub node: &'static TaskNode,
    /// What happened.
    pub kind: FaultKind,
}

/// What went wrong; see [`NodeFault`]. New kinds may be added in a minor
/// release.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub enum FaultKind {
    /// Asked to stop, the node did not acknowledge within its ack timeout
    /// ([`SHUTDOWN_ACK_TIMEOUT`](crate::SHUTDOWN_ACK_TIMEOUT) unless it sets
    /// its own). It is still running as far as the supervisor knows; the
    /// application decides the escalation (retry, log, hardware reset).
    AckMissed,
    /// A resource slot the node needs stayed empty for its slot timeout; the
    /// spawn was refused. `gate` is the slot's position in the node's gate
    /// list: its `resources:` in declaration order (those compiled in), as
    /// given to [`NodeSpec::with_resources`](crate::NodeSpec::with_resources).
    ResourceEmpty {
        /// Position of the slot in the node's gate list.
        gate: u8,
    },
    /// The executor the node runs on (its `executor:` [`SpawnerSlot`](crate::SpawnerSlot))
    /// was not published within the node's slot timeout; the spawn was refused.
    ExecutorUnpublished {
        /// Position of the slot in the node's gate list (after its resources).
        gate: u8,
    },
    /// A `ready` dependency did not report ready within the node's slot
    /// timeout; the spawn was refused.
    DepNotReady {
        /// The dependency that stayed not ready.
        dep: &'static TaskNode,
    },
    /// A dependency of the node is stopping (asked to stop or pause, not
    /// yet acked): the node was not spawned, so nothing comes up on a node
    /// a stop wave is taking down. Bring it up once the dependency is back.
    DepStopping {
        /// The dependency that is down.
        dep: &'static TaskNode,
    },
    /// The spawn fn returned `SpawnError::Busy`: the task's pool has no free
    /// instance (an earlier one not yet freed by the executor), or the spawn
    /// glue found a slot emptied after its gate opened.
    SpawnBusy,
    /// The verb would not act on the node, or a latch or teardown that began
    /// meanwhile won over its bring-up. Nothing was spawned.
    Refused(Refusal),
    /// A restart was refused before anything stopped: the node already
    /// restarted `restarts` times within its `restart_budget:` window.
    BudgetSpent {
        /// Restarts counted in the window.
        restarts: u16,
        /// The window, in milliseconds.
        window_ms: u32,
    },
    /// An automatic restart found the budget spent and escalated: the graph
    /// was torn down. What [`run`](crate::Supervisor::run) returns then.
    Escalated {
        /// Restarts counted in the window.
        restarts: u16,
        /// The window, in milliseconds.
        window_ms: u32,
    },
}

/// What [`Supervisor::run`](crate::Supervisor::run) returns: its one
/// [`NodeFault`], sorted into the specification's two arms so a `match` on
/// `Spawn` / `Shutdown` compiles as printed there.
///
/// Code written against `NodeFault` reads through it: the value derefs to
/// its fault (`e.node`, `e.kind`), displays as the fault does, and compares
/// equal to it; [`fault`](Self::fault) or `NodeFault::from` gives the fault
/// by value.
///
/// ```
/// # use embassy_supervisor::{FaultKind, Mode, NodeFault, NodeSpec, RunError, TaskNode};
/// static RADIO: TaskNode = TaskNode::new(&NodeSpec::new("radio", Mode::Terminate));
/// let e = RunError::from(NodeFault::new(&RADIO, FaultKind::AckMissed));
/// match e {
///     RunError::Spawn(_) => unreachable!(),
///     RunError::Shutdown(f) => assert_eq!(f.node.name, "radio"),
/// }
/// assert_eq!(e.kind, FaultKind::AckMissed);
/// assert_eq!(e.to_string(), "node `radio` missed its shutdown ack");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The graph could not be brought or kept up: a bring-up fault (which
    /// gate stayed closed, a busy task pool), a control `Activate` or
    /// `Restart` that could not bring its node up, or an escalated restart
    /// budget. Every kind but [`FaultKind::AckMissed`].
    Spawn(NodeFault),
    /// A stop (a pool shrink, a control `Deactivate` or `Restart`, a
    /// controller's Replace) missed its ack: [`FaultKind::AckMissed`].
    Shutdown(NodeFault),
}

impl RunError {
    /// The fault, whichever arm carries it.
    pub const fn fault(&self) -> NodeFault {
        match *self {
            Self::Spawn(f) | Self::Shutdown(f) => f,
        }
    }
}

impl From<NodeFault> for RunError {
    /// [`Shutdown`](Self::Shutdown) for a missed ack, [`Spawn`](Self::Spawn)
    /// for every other kind.
    fn from(fault: NodeFault) -> Self {
        match fault.kind {
            FaultKind::AckMissed => Self::Shutdown(fault),
            _ => Self::Spawn(fault),
        }
    }
}

impl From<RunError> for NodeFault {
    fn from(e: RunError) -> Self {
        e.fault()
    }
}

/// So code written when `run()` returned a `NodeFault` (`e.node`, `e.kind`)
/// still compiles.
impl core::ops::Deref for RunError {
    type Target = NodeFault;

    fn deref(&self) -> &NodeFault {
        match self {
            Self::Spawn(f) | Self::Shutdown(f) => f,
        }
    }
}

impl PartialEq<NodeFault> for RunError {
    fn eq(&self, other: &NodeFault) -> bool {
        self.fault() == *other
    }
}

impl PartialEq<RunError> for NodeFault {
    fn eq(&self, other: &RunError) -> bool {
        *self == other.fault()
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl core::error::Error for RunError {}

#[cfg(feature = "defmt")]
impl defmt::Format for RunError {
    fn format(&self, f: defmt::Formatter) {
        defmt::Format::format(&**self, f)
    }
}

/// The specification's bring-up error, for `?` from a verb into a function
/// returning `Result<_, SpawnError>`. `SpawnError` has only `Busy`, so the
/// node and the kind are lost: keep the [`NodeFault`] where you can.
impl From<NodeFault> for SpawnError {
    fn from(_: NodeFault) -> Self {
        SpawnError::Busy
    }
}

/// The specification's stop error, for `?` from a verb into a function
/// returning `Result<_, ShutdownTimeout>`: the same node. A fault that is not
/// a missed ack (a refusal of a node outside the graph) loses its kind: keep
/// the [`NodeFault`] where you can.
impl From<NodeFault> for ShutdownTimeout {
    fn from(fault: NodeFault) -> Self {
        ShutdownTimeout { node: fault.node }
    }
}

/// Why a verb would not act on a node ([`FaultKind::Refused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Refusal {
    /// The node is not in this supervisor's graph.
    NotInGraph,
    /// Declared `disabled` or deactivated: `activate` it instead.
    Disabled,
    /// Held down by a deactivated dependency (the collateral hold): `activate`
    /// that dependency, or the node itself.
    Held,
    /// Self-managed: the supervisor does not touch it.
    Detached,
    /// The graph is torn down, or a teardown began during the bring-up.
    Halted,
}

// Three words (see the module doc), and a `Result` adds nothing.
const _: () = assert!(core::mem::size_of::<NodeFault>() <= 3 * core::mem::size_of::<usize>());
const _: () =
    assert!(core::mem::size_of::<Result<(), NodeFault>>() == core::mem::size_of::<NodeFault>());

impl NodeFault {
    /// A fault of `kind` on `node`.
    pub const fn new(node: &'static TaskNode, kind: FaultKind) -> Self {
        Self { node, kind }
    }

    /// True if something that wins over the verb decided the outcome, not a
    /// malfunction: a [`Refused`](FaultKind::Refused) (a `disabled` or held
    /// latch, a detached node, a node outside the graph, a teardown), a
    /// stopping dependency ([`DepStopping`](FaultKind::DepStopping)) or a spent
    /// restart budget ([`BudgetSpent`](FaultKind::BudgetSpent)).
    /// [`run`](crate::Supervisor::run) logs such a fault from a control
    /// command and drives on.
    pub const fn is_refusal(&self) -> bool {
        matches!(
            self.kind,
            FaultKind::Refused(_) | FaultKind::DepStopping { .. } | FaultKind::BudgetSpent { .. }
        )
    }
}

impl From<ShutdownTimeout> for NodeFault {
    fn from(e: ShutdownTimeout) -> Self {
        Self::new(e.node, FaultKind::AckMissed)
    }
}

impl From<SpawnError> for FaultKind {
    fn from(e: SpawnError) -> Self {
        match e {
            SpawnError::Busy => FaultKind::SpawnBusy,
        }
    }
}

impl From<Refusal> for FaultKind {
    fn from(r: Refusal) -> Self {
        FaultKind::Refused(r)
    }
}

impl PartialEq for NodeFault {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(self.node, other.node) && self.kind == other.kind
    }
}

impl Eq for NodeFault {}

impl PartialEq for FaultKind {
    fn eq(&self, other: &Self) -> bool {
        use FaultKind::*;
        match (*self, *other) {
            (AckMissed, AckMissed) | (SpawnBusy, SpawnBusy) => true,
            (ResourceEmpty { gate: a }, ResourceEmpty { gate: b }) => a == b,
            (ExecutorUnpublished { gate: a }, ExecutorUnpublished { gate: b }) => a == b,
            (DepNotReady { dep: a }, DepNotReady { dep: b })
            | (DepStopping { dep: a }, DepStopping { dep: b }) => core::ptr::eq(a, b),
            (Refused(a), Refused(b)) => a == b,
            (
                BudgetSpent {
                    restarts: a,
                    window_ms: x,
                },
                BudgetSpent {
                    restarts: b,
                    window_ms: y,
                },
            )
            | (
                Escalated {
                    restarts: a,
                    window_ms: x,
                },
                Escalated {
                    restarts: b,
                    window_ms: y,
                },
            ) => a == b && x == y,
            _ => false,
        }
    }
}

impl Eq for FaultKind {}

impl fmt::Debug for NodeFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeFault")
            .field("node", &self.node.name)
            .field("kind", &self.kind)
            .finish()
    }
}

impl fmt::Debug for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::AckMissed => f.write_str("AckMissed"),
            Self::ResourceEmpty { gate } => f
                .debug_struct("ResourceEmpty")
                .field("gate", &gate)
                .finish(),
            Self::ExecutorUnpublished { gate } => f
                .debug_struct("ExecutorUnpublished")
                .field("gate", &gate)
                .finish(),
            Self::DepNotReady { dep } => f
                .debug_struct("DepNotReady")
                .field("dep", &dep.name)
                .finish(),
            Self::DepStopping { dep } => f
                .debug_struct("DepStopping")
                .field("dep", &dep.name)
                .finish(),
            Self::SpawnBusy => f.write_str("SpawnBusy"),
            Self::Refused(r) => f.debug_tuple("Refused").field(&r).finish(),
            Self::BudgetSpent {
                restarts,
                window_ms,
            } => f
                .debug_struct("BudgetSpent")
                .field("restarts", &restarts)
                .field("window_ms", &window_ms)
                .finish(),
            Self::Escalated {
                restarts,
                window_ms,
            } => f
                .debug_struct("Escalated")
                .field("restarts", &restarts)
                .field("window_ms", &window_ms)
                .finish(),
        }
    }
}

impl fmt::Display for NodeFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.node.name;
        match self.kind {
            FaultKind::AckMissed => write!(f, "node `{name}` missed its shutdown ack"),
            FaultKind::ResourceEmpty { gate } => write!(
                f,
                "node `{name}` not spawned: its resource slot {gate} stayed empty"
            ),
            FaultKind::ExecutorUnpublished { gate } => write!(
                f,
                "node `{name}` not spawned: its executor (slot {gate}) was not published"
            ),
            FaultKind::DepNotReady { dep } => write!(
                f,
                "node `{name}` not spawned: its `ready` dependency `{}` did not become ready",
                dep.name
            ),
            FaultKind::DepStopping { dep } => write!(
                f,
                "node `{name}` not spawned: its dependency `{}` is stopping",
                dep.name
            ),
            FaultKind::SpawnBusy => write!(
                f,
                "node `{name}` not spawned: its task pool is busy (SpawnError::Busy)"
            ),
            FaultKind::Refused(why) => write!(f, "node `{name}` refused: {why}"),
            FaultKind::BudgetSpent {
                restarts,
                window_ms,
            } => write!(
                f,
                "node `{name}` not restarted: {restarts} restarts within {window_ms} ms spent its budget"
            ),
            FaultKind::Escalated {
                restarts,
                window_ms,
            } => write!(
                f,
                "node `{name}` escalated: {restarts} restarts within {window_ms} ms; graph torn down"
            ),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::NotInGraph => "not in this supervisor's graph",
            Refusal::Disabled => "disabled (activate it first)",
            Refusal::Held => "held by a deactivated dependency (activate that first)",
            Refusal::Detached => "detached (self-managed)",
            Refusal::Halted => "the graph is torn down (start it first)",
        })
    }
}

impl core::error::Error for NodeFault {}

#[cfg(feature = "defmt")]
impl defmt::Format for NodeFault {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "node `{=str}`: {}", self.node.name, self.kind)
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for FaultKind {
    fn format(&self, f: defmt::Formatter) {
        match *self {
            Self::AckMissed => defmt::write!(f, "missed its shutdown ack"),
            Self::ResourceEmpty { gate } => {
                defmt::write!(f, "not spawned: resource slot {=u8} stayed empty", gate)
            }
            Self::ExecutorUnpublished { gate } => {
                defmt::write!(f, "not spawned: executor slot {=u8} not published", gate)
            }
            Self::DepNotReady { dep } => defmt::write!(
                f,
                "not spawned: `ready` dependency `{=str}` did not become ready",
                dep.name
            ),
            Self::DepStopping { dep } => {
                defmt::write!(f, "not spawned: dependency `{=str}` is stopping", dep.name)
            }
            Self::SpawnBusy => defmt::write!(f, "not spawned: task pool busy"),
            Self::Refused(why) => defmt::write!(f, "refused: {}", why),
            Self::BudgetSpent {
                restarts,
                window_ms,
            } => defmt::write!(
                f,
                "not restarted: {=u16} restarts within {=u32} ms",
                restarts,
                window_ms
            ),
            Self::Escalated {
                restarts,
                window_ms,
            } => defmt::write!(
                f,
                "escalated: {=u16} restarts within {=u32} ms; graph torn down",
                restarts,
                window_ms
            ),
        }
    }
}
