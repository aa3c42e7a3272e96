//! How the supervisor drives a controller: the object-safe `Drive` view,
//! the admission and teardown guards, and `Supervisor::with_controller`.

use crate::{Supervisor, TaskNode};
use embassy_executor::{SpawnError, Spawner};
use embassy_time::Instant;

use super::*;

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
        fn admitted(&self, a: Admission, result: Result<(), SpawnError>);
        fn close(&self);
        fn reopen(&self);
        /// The owner of a slot that has waited longer than the owner's ack
        /// timeout for its stopped owner (Replace) to go down, or else the
        /// earliest instant at which one could.
        fn overdue(&self, now: Instant) -> Result<Option<Instant>, &'static TaskNode>;
    }
}
pub(super) use sealed::{Admission, Drive};

/// A controller the supervisor can drive (implemented by [`Controller`]).
pub trait DriveController: Drive + Sync {}

impl<P: Send + 'static, const S: usize, const D: usize, const I: usize, const W: usize> Drive
    for Controller<P, S, D, I, W>
{
    fn next_admission(&self, admit: bool) -> Option<Admission> {
        let now = Instant::from_ticks(crate::wait::now());
        let (admission, delivery) = self.with_state(|s| {
            s.drain_intake(now);
            s.sweep(now);
            if admit { s.pick(now) } else { None }
        })?;
        if let Some((inbox, payload)) = delivery {
            inbox.provide(payload);
        }
        Some(admission)
    }

    fn overdue(&self, now: Instant) -> Result<Option<Instant>, &'static TaskNode> {
        self.state.lock(|s| {
            let mut earliest: Option<Instant> = None;
            for slot in s.borrow().slots.iter() {
                let (SlotStatusKind::Terminating, Some(owner)) = (slot.status, slot.owner) else {
                    continue;
                };
                let Some(due) = slot.since.checked_add(owner.ack_timeout()) else {
                    continue;
                };
                if now >= due {
                    return Err(owner);
                }
                earliest = Some(earliest.map_or(due, |e| e.min(due)));
            }
            Ok(earliest)
        })
    }

    fn admitted(&self, a: Admission, result: Result<(), SpawnError>) {
        let now = Instant::from_ticks(crate::wait::now());
        let inbox = self.with_state(|s| s.admitted(a.slot, result, now));
        // A failed spawn put the payload back (the `Lent` guard); take it
        // out so no later spawn of that node runs a job nobody queued.
        if let Some(inbox) = inbox {
            drop(inbox.take());
        }
    }

    fn close(&self) {
        let now = Instant::from_ticks(crate::wait::now());
        self.with_state(|s| s.close(now));
    }

    fn reopen(&self) {
        let now = Instant::from_ticks(crate::wait::now());
        self.with_state(|s| {
            s.sweep(now);
            s.closed = false;
        });
    }
}

impl<P: Send + 'static, const S: usize, const D: usize, const I: usize, const W: usize>
    DriveController for Controller<P, S, D, I, W>
{
}

/// Reports an admission the driver could not finish (its future was dropped
/// mid-spawn) as failed, so the slot is never left reserved.
struct AdmitGuard {
    ctrl: &'static dyn DriveController,
    admission: Option<Admission>,
}

impl AdmitGuard {
    fn finish(mut self, result: Result<(), SpawnError>) {
        if let Some(a) = self.admission.take() {
            self.ctrl.admitted(a, result);
        }
    }
}

impl Drop for AdmitGuard {
    fn drop(&mut self) {
        if let Some(a) = self.admission.take() {
            self.ctrl.admitted(a, Err(SpawnError::Busy));
        }
    }
}

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

impl<const N: usize> Supervisor<N> {
    /// Drive `ctrl` from [`run`](Self::run). One controller per supervisor.
    pub const fn with_controller(mut self, ctrl: &'static dyn DriveController) -> Self {
        self.controller = Some(ctrl);
        self
    }

    /// One controller pass: apply submissions, resolve owners that are
    /// down, start every job that can start. Called by `run` after each
    /// change (the notify epoch), never on a timer.
    /// Returns when the driver must look again even if nothing changes (a
    /// stopped owner's ack deadline), or the owner that missed it: a Replace
    /// stop is a stop like any other, and a missed ack is `run`'s error.
    pub(crate) async fn drive_controller(
        &self,
        spawner: Spawner,
    ) -> Result<Option<Instant>, crate::ShutdownTimeout> {
        let Some(ctrl) = self.controller else {
            return Ok(None);
        };
        // A torn-down graph starts nothing until it is started again (as
        // pools do not regrow): jobs wait in their slots meanwhile.
        loop {
            // Noted before `halted` is read: a teardown after that read ends
            // this era, and the admission's bring-up backs out.
            let era = self.era();
            let Some(a) = ctrl.next_admission(!self.is_halted()) else {
                break;
            };
            let guard = AdmitGuard {
                ctrl,
                admission: Some(a),
            };
            let result = self.bring_up(a.node, spawner, era).await;
            guard.finish(result);
        }
        ctrl.overdue(Instant::from_ticks(crate::wait::now()))
            .map_err(|node| {
                #[cfg(feature = "events")]
                crate::event::publish(crate::event::EventKind::ShutdownTimeout { node: node.name });
                crate::ShutdownTimeout { node }
            })
    }
}
