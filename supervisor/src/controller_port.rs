//! The supervisor's side of the controller interface (feature
//! `controller`): the object-safe view the driver calls and the teardown
//! guard. Defined here, below both, so the supervisor holds a controller
//! without importing the `controller` module, which builds on the supervisor.

use embassy_time::Instant;

use crate::TaskNode;

mod sealed {
    use super::*;

    /// One admission handed to the driver: spawn `node` for slot `slot`.
    #[derive(Clone, Copy)]
    pub struct Admission {
        pub slot: usize,
        pub node: &'static TaskNode,
    }

    /// The driver's view of a controller (object-safe, non-generic, so the
    /// supervisor holds any controller behind one reference).
    pub trait Drive {
        /// Apply submissions and resolve owners that are down; then, if
        /// `admit`, pick the next job to start.
        fn next_admission(&self, admit: bool) -> Option<Admission>;
        /// The admission's bring-up finished: `spawned` or not (the
        /// driver keeps the fault; the controller needs only the outcome).
        fn admitted(&self, a: Admission, spawned: bool);
        fn close(&self);
        fn reopen(&self);
        /// The owner of a slot that has waited longer than the owner's ack
        /// timeout for its stopped owner (Replace) to go down, or else the
        /// earliest instant at which one could.
        fn overdue(&self, now: Instant) -> Result<Option<Instant>, &'static TaskNode>;
    }
}
pub(crate) use sealed::{Admission, Drive};

/// A controller the supervisor can drive (implemented by [`Controller`](crate::controller::Controller)).
pub trait DriveController: Drive + Sync {}

/// Held by `teardown`: closes the controller (queued work resolves
/// `ShuttingDown`) and, when dropped, resolves the owners that went down and
/// reopens it.
pub(crate) struct Closing(Option<&'static dyn DriveController>);

impl Closing {
    pub(crate) fn new(ctrl: Option<&'static dyn DriveController>) -> Self {
        if let Some(c) = ctrl {
            c.close();
        }
        Self(ctrl)
    }
}

impl Drop for Closing {
    fn drop(&mut self) {
        if let Some(c) = self.0 {
            c.reopen();
        }
    }
}
