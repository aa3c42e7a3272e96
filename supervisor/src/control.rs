//! Runtime control: a lossless mailbox of `Activate`/`Deactivate` commands,
//! shared by every graph in the binary and applied by the one driver
//! (`Supervisor::run`, or a hand-written `wait_control` + `apply_control` loop).

use core::cell::RefCell;

use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
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

/// The queued commands, oldest first. Not a `Channel`: a driver takes the
/// oldest command *for its own graph*, so two graphs' `run()` loops share the
/// mailbox without one taking (and dropping) the other's command.
static MAILBOX: Mutex<CriticalSectionRawMutex, RefCell<Queue>> =
    Mutex::new(RefCell::new(Queue::new()));

/// A FIFO of at most [`CONTROL_QUEUE_DEPTH`] commands.
struct Queue {
    cmds: [Option<ControlCommand>; CONTROL_QUEUE_DEPTH],
    len: usize,
}

impl Queue {
    const fn new() -> Self {
        Self {
            cmds: [None; CONTROL_QUEUE_DEPTH],
            len: 0,
        }
    }

    fn push(&mut self, cmd: ControlCommand) -> Result<(), ControlQueueFull> {
        let slot = self.cmds.get_mut(self.len).ok_or(ControlQueueFull)?;
        *slot = Some(cmd);
        self.len += 1;
        Ok(())
    }

    /// Remove and return the oldest command `wanted` accepts; the others
    /// keep their order. O(depth).
    fn take(&mut self, wanted: &dyn Fn(&TaskNode) -> bool) -> Option<ControlCommand> {
        let at = self.cmds[..self.len]
            .iter()
            .position(|c| c.is_some_and(|c| wanted(c.node)))?;
        let cmd = self.cmds[at].take();
        // Close the gap over the whole (fixed, tiny) array: a loop of
        // constant length unrolls, where a shift of `at..len` (a slice
        // rotate) links a general `memmove` of 1.5 KB on thumbv8m.
        for k in 0..CONTROL_QUEUE_DEPTH - 1 {
            if k >= at {
                self.cmds[k] = self.cmds[k + 1].take();
            }
        }
        self.len -= 1;
        cmd
    }
}

// Waiters sleep in these intrusive lists, any number of them.
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
    MAILBOX.lock(|q| q.borrow_mut().push(cmd))?;
    MAIL.wake_all();
    Ok(())
}

/// Receive the oldest command, whatever graph its node is in (for a
/// hand-written driver loop that is the binary's only control driver).
pub async fn wait_control() -> ControlCommand {
    wait_control_where(&|_| true).await
}

/// Receive the oldest command whose node `wanted` accepts, leaving the
/// others queued in order for their own driver. `Supervisor::run` takes only
/// its own graph's commands this way.
pub async fn wait_control_where(wanted: &dyn Fn(&TaskNode) -> bool) -> ControlCommand {
    loop {
        // Created before the attempt: it sees every wake after this point.
        let mail = MAIL.wait();
        if let Some(cmd) = MAILBOX.lock(|q| q.borrow_mut().take(wanted)) {
            ROOM.wake_all();
            return cmd;
        }
        let _ = mail.await;
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::{Mode, NodeSpec};

    static A: TaskNode = TaskNode::new(&NodeSpec::new("A", Mode::Terminate));
    static B: TaskNode = TaskNode::new(&NodeSpec::new("B", Mode::Terminate));

    fn cmd(node: &'static TaskNode, op: ControlOp) -> ControlCommand {
        ControlCommand { node, op }
    }

    /// A driver taking its own graph's command from the middle of the
    /// queue leaves the others in their order, and the freed place is the
    /// queue's last again.
    #[test]
    fn take_keeps_the_others_in_order() {
        let mut q = Queue::new();
        let is = |n: &'static TaskNode| move |m: &TaskNode| core::ptr::eq(m, n);
        q.push(cmd(&A, ControlOp::Activate)).unwrap();
        q.push(cmd(&B, ControlOp::Deactivate)).unwrap();
        q.push(cmd(&A, ControlOp::Deactivate)).unwrap();
        q.push(cmd(&B, ControlOp::Activate)).unwrap();
        assert!(
            q.push(cmd(&A, ControlOp::Activate)).is_err(),
            "full at the depth"
        );
        let b = q.take(&is(&B)).unwrap();
        assert!(core::ptr::eq(b.node, &B) && b.op == ControlOp::Deactivate);
        q.push(cmd(&B, ControlOp::Deactivate)).unwrap();
        let order: [_; 4] = core::array::from_fn(|_| q.take(&|_| true).unwrap());
        let got = order.map(|c| (c.node.name, c.op));
        assert_eq!(
            got,
            [
                ("A", ControlOp::Activate),
                ("A", ControlOp::Deactivate),
                ("B", ControlOp::Activate),
                ("B", ControlOp::Deactivate),
            ]
        );
        assert!(q.take(&|_| true).is_none(), "empty after four takes");
    }
}
