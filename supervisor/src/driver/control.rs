//! Control (feature `control`): applying one command, and `run()`'s wait
//! for this graph's next command or any change.

use embassy_executor::Spawner;
use embassy_futures::select::{Either, select};
use embassy_time::Instant;

use crate::Supervisor;
use crate::control::{ControlCommand, ControlOp};
use crate::fault::NodeFault;

impl<const N: usize, const USES: u8> Supervisor<N, USES> {
    /// Apply one control command: `Activate` → [`activate`](Self::activate),
    /// `Deactivate` → [`deactivate`](Self::deactivate), `Restart` →
    /// [`restart`](Self::restart). A command naming a node outside this
    /// supervisor's graph is a no-op (the mailbox is shared by every graph in
    /// the binary).
    ///
    /// The `Err` is the verb's [`NodeFault`]: a missed ack, a node an
    /// `Activate` or `Restart` could not bring up, a refusal (a restart of a
    /// disabled node). `run()` ends on the first two (the mailbox has no
    /// reply path, so `run`'s value is how the application hears of a node
    /// that should be up and is not) and logs a refusal
    /// ([`NodeFault::is_refusal`]) and drives on: nothing malfunctioned.
    pub async fn apply_control(
        &self,
        cmd: ControlCommand,
        spawner: Spawner,
    ) -> Result<(), NodeFault> {
        if self.graph().index_of(cmd.node).is_none() {
            return Ok(());
        }
        #[cfg(feature = "events")]
        crate::event::publish(crate::event::EventKind::ControlApplied {
            node: cmd.node.name,
            op: cmd.op,
        });
        // Each verb polled out of line: this frame does not hold every
        // verb's stack temporaries at once (see `out_of_line`).
        use crate::out_of_line::OutOfLine;
        match cmd.op {
            ControlOp::Activate => OutOfLine::new(self.activate(cmd.node, spawner)).await,
            ControlOp::Deactivate => OutOfLine::new(self.deactivate(cmd.node)).await,
            ControlOp::Restart => OutOfLine::new(self.restart(cmd.node, spawner)).await,
        }
    }

    /// The next command `mine` takes (`First`; a graph's driver takes only
    /// its own graph's), or a change after `epoch` or `deadline`
    /// (`Second`), whichever is first: `run()`'s wait. The wait itself,
    /// not an `async fn` around it (flash: no wrapper state).
    pub(super) fn next_command<'a>(
        mine: &'a dyn Fn(&crate::TaskNode) -> bool,
        epoch: u32,
        deadline: Option<Instant>,
    ) -> impl Future<Output = Either<ControlCommand, ()>> + 'a {
        select(
            crate::control::wait_control_where(mine),
            super::wait_change(epoch, deadline),
        )
    }
}
