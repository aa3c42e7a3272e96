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
    /// An automatic restart found its node's `restart_budget:` spent: the
    /// driver tore the graph down in reverse dependency order and stopped
    /// (feature `restart`). The fault names the node, with kind
    /// [`FaultKind::Escalated`](crate::FaultKind::Escalated) (the restarts
    /// in the window and the window).
    #[cfg(feature = "restart")]
    Escalated(crate::NodeFault),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "bring-up failed: {e}"),
            RunError::Shutdown(e) => fmt::Display::fmt(e, f),
            #[cfg(feature = "restart")]
            RunError::Escalated(fault) => fmt::Display::fmt(fault, f),
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
            RunError::Escalated(fault) => defmt::write!(f, "{}", fault),
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
