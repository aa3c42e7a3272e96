//! Runtime control: a lossless mailbox of `Activate`/`Deactivate` commands,
//! shared by every graph in the binary and applied by the one driver
//! (`Supervisor::run`, or a hand-written `wait_control` + `apply_control` loop).

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::channel::Channel;
use maitake_sync::WaitQueue;

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

// The channel is only ever used through `try_send` / `try_receive`: its own
// waker slots hold one sender and one receiver, and two tasks waiting on one
// of them would wake each other forever. Waiters sleep in these intrusive
// lists instead, any number of them.
/// Senders waiting for room.
static ROOM: WaitQueue = WaitQueue::new();
/// Drivers waiting for a command.
static MAIL: WaitQueue = WaitQueue::new();

/// Queue a command, waiting for room if the mailbox is full (never drops).
/// Any number of tasks may wait; each sleeps until a command is taken out.
pub async fn request_control(node: &'static TaskNode, op: ControlOp) {
    let cmd = ControlCommand { node, op };
    loop {
        // Created before the attempt: it sees every wake after this point.
        let room = ROOM.wait();
        if try_queue(cmd).is_ok() {
            return;
        }
        let _ = room.await;
    }
}

/// Queue a command from a sync context (ISR, callback):
/// `Err(ControlQueueFull)` if the mailbox is full; nothing is queued then.
pub fn try_request_control(node: &'static TaskNode, op: ControlOp) -> Result<(), ControlQueueFull> {
    try_queue(ControlCommand { node, op })
}

fn try_queue(cmd: ControlCommand) -> Result<(), ControlQueueFull> {
    MAILBOX.try_send(cmd).map_err(|_| ControlQueueFull)?;
    MAIL.wake_all();
    Ok(())
}

/// Receive the next command (for a hand-written driver loop).
pub async fn wait_control() -> ControlCommand {
    loop {
        // Created before the attempt: it sees every wake after this point.
        let mail = MAIL.wait();
        if let Ok(cmd) = MAILBOX.try_receive() {
            ROOM.wake_all();
            return cmd;
        }
        let _ = mail.await;
    }
}
