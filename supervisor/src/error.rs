//! Error types. Every outcome of a supervisor operation is one of these values:
//! the library never panics on a missed ack, a full mailbox or a failed spawn.

use core::fmt;

use crate::TaskNode;

/// A node did not acknowledge a stop request within its ack timeout
/// ([`SHUTDOWN_ACK_TIMEOUT`](crate::SHUTDOWN_ACK_TIMEOUT) unless the node
/// sets its own with [`NodeSpec::with_ack_timeout`](crate::NodeSpec::with_ack_timeout)).
///
/// The node is still running (from the supervisor's point of view); the
/// application decides the escalation (retry, log, hardware reset). The
/// verbs return it as a [`NodeFault`](crate::NodeFault) of kind
/// [`AckMissed`](crate::FaultKind::AckMissed) (`From` converts).
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
