//! Runtime control: a lossless mailbox of `Activate`/`Deactivate` commands,
//! shared by every graph in the binary and applied by the one driver
//! (`Supervisor::run`, or a hand-written `wait_control` + `apply_control` loop).

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::channel::Channel;

use crate::TaskNode;
use crate::error::ControlQueueFull;
pub use crate::payload::ControlOp;

/// Commands the mailbox holds before `request_control` waits for room.
pub const CONTROL_QUEUE_DEPTH: usize = 4;

/// A queued control command.
#[derive(Clone, Copy, Debug)]
pub struct ControlCommand {
    /// The target node.
    pub node: &'static TaskNode,
    /// What to do to it.
    pub op: ControlOp,
}

static MAILBOX: Channel<CriticalSectionRawMutex, ControlCommand, CONTROL_QUEUE_DEPTH> =
    Channel::new();

/// Queue a command, waiting for room if the mailbox is full (never drops).
pub async fn request_control(node: &'static TaskNode, op: ControlOp) {
    MAILBOX.send(ControlCommand { node, op }).await;
}

/// Queue a command from a sync context (ISR, callback):
/// `Err(ControlQueueFull)` if the mailbox is full; nothing is queued then.
pub fn try_request_control(node: &'static TaskNode, op: ControlOp) -> Result<(), ControlQueueFull> {
    MAILBOX
        .try_send(ControlCommand { node, op })
        .map_err(|_| ControlQueueFull)
}

/// Receive the next command (for a hand-written driver loop).
pub async fn wait_control() -> ControlCommand {
    MAILBOX.receive().await
}
