//! How the supervisor drives a controller: the object-safe `Drive` view,
//! the admission and teardown guards, and `Supervisor::with_controller`.

use crate::{NodeFault, Supervisor, TaskNode};
use embassy_executor::Spawner;
use embassy_time::Instant;

use super::*;
use crate::controller_port::{Admission, Drive, DriveController};

impl<P: Send + 'static, const S: usize, const D: usize, const I: usize, const W: usize> Drive
    for Controller<P, S, D, I, W>
{
    fn next_admission(&self, admit: bool) -> Option<Admission> {
        let now = Instant::from_ticks(crate::clock::now());
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

    fn admitted(&self, a: Admission, spawned: bool) {
        let now = Instant::from_ticks(crate::clock::now());
        let inbox = self.with_state(|s| s.admitted(a.slot, spawned, now));
        // A failed spawn put the payload back (the `Lent` guard); take it
        // out so no later spawn of that node runs a job nobody queued.
        if let Some(inbox) = inbox {
            drop(inbox.take());
        }
    }

    fn close(&self) {
        let now = Instant::from_ticks(crate::clock::now());
        self.with_state(|s| s.close(now));
    }

    fn reopen(&self) {
        let now = Instant::from_ticks(crate::clock::now());
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
    fn finish(mut self, spawned: bool) {
        if let Some(a) = self.admission.take() {
            self.ctrl.admitted(a, spawned);
        }
    }
}

impl Drop for AdmitGuard {
    fn drop(&mut self) {
        if let Some(a) = self.admission.take() {
            self.ctrl.admitted(a, false);
        }
    }
}

impl<const N: usize, const USES: u8> Supervisor<N, USES> {
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
    ) -> Result<Option<Instant>, NodeFault> {
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
            guard.finish(result.is_ok());
        }
        ctrl.overdue(Instant::from_ticks(crate::clock::now()))
            .map_err(|node| NodeFault::from(crate::supervisor::missed_ack(node)))
    }
}
