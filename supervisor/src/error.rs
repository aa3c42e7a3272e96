//! Error types. Every outcome of a supervisor operation is one of these values:
//! the library never panics on a missed ack, a full mailbox or a failed spawn.

use core::fmt;

use crate::TaskNode;

/// A node did not acknowledge a stop request within its ack timeout
/// ([`SHUTDOWN_ACK_TIMEOUT`](crate::SHUTDOWN_ACK_TIMEOUT) unless the node
/// sets its own with [`NodeSpec::with_ack_timeout`](crate::NodeSpec::with_ack_timeout)).
///
/// The node is still running (from the supervisor's point of view); the
/// application decides the escalation (retry, log, hardware reset).
#[derive(Clone, Copy)]
pub struct ShutdownTimeout {
    /// The node that missed its ack.
    pub node: &'static TaskNode,
}

impl fmt::Debug for ShutdownTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShutdownTimeout")
            .field("node", &self.node.name)
            .finish()
    }
}

impl fmt::Display for ShutdownTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node `{}` missed its shutdown ack", self.node.name)
    }
}

impl PartialEq for ShutdownTimeout {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(self.node, other.node)
    }
}

impl core::error::Error for ShutdownTimeout {}

#[cfg(feature = "defmt")]
impl defmt::Format for ShutdownTimeout {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "node `{=str}` missed its shutdown ack", self.node.name)
    }
}

/// Why [`Supervisor::run`](crate::Supervisor::run) returned.
#[derive(Clone, Copy, Debug)]
pub enum RunError {
    /// Bring-up (`start`) failed to spawn a node;
    /// [`Supervisor::failed_node`](crate::Supervisor::failed_node) names it.
    Spawn(embassy_executor::SpawnError),
    /// A stop issued by the driver (pool shrink or control command) missed its ack.
    Shutdown(ShutdownTimeout),
    /// An automatic restart of `node` found its `restart_budget:` spent
    /// (`restarts` restarts within `window_ms`): the driver tore the graph
    /// down in reverse dependency order and stopped (feature `restart`).
    /// The same facts as a [`FaultKind::Escalated`](crate::FaultKind::Escalated)
    /// fault on `node`.
    #[cfg(feature = "restart")]
    Escalated {
        /// The node whose budget ran out.
        node: &'static TaskNode,
        /// Restarts counted in the window.
        restarts: u16,
        /// The window, in milliseconds.
        window_ms: u32,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "bring-up failed: {e}"),
            RunError::Shutdown(e) => fmt::Display::fmt(e, f),
            #[cfg(feature = "restart")]
            RunError::Escalated {
                node,
                restarts,
                window_ms,
            } => write!(
                f,
                "node `{}` escalated: {restarts} restarts within {window_ms} ms; graph torn down",
                node.name
            ),
        }
    }
}

impl core::error::Error for RunError {}

impl From<ShutdownTimeout> for RunError {
    fn from(e: ShutdownTimeout) -> Self {
        RunError::Shutdown(e)
    }
}

impl From<embassy_executor::SpawnError> for RunError {
    fn from(e: embassy_executor::SpawnError) -> Self {
        RunError::Spawn(e)
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for RunError {
    fn format(&self, f: defmt::Formatter) {
        match self {
            RunError::Spawn(e) => defmt::write!(f, "bring-up failed: {}", e),
            RunError::Shutdown(e) => defmt::write!(f, "{}", e),
            #[cfg(feature = "restart")]
            RunError::Escalated {
                node,
                restarts,
                window_ms,
            } => defmt::write!(
                f,
                "node `{=str}` escalated: {=u16} restarts within {=u32} ms; graph torn down",
                node.name,
                restarts,
                window_ms
            ),
        }
    }
}

/// The control mailbox was full; the command was *not* queued (nothing is
/// dropped silently). Retry, or use the awaiting `request_control`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlQueueFull;

impl fmt::Display for ControlQueueFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("control mailbox full: command not queued")
    }
}

impl core::error::Error for ControlQueueFull {}

#[cfg(feature = "defmt")]
impl defmt::Format for ControlQueueFull {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "control mailbox full: command not queued")
    }
}
