//! The slot machine: how the driver applies submissions, resolves owners
//! and picks the next job. Single writer: only the driver pass (and the
//! teardown guard) changes slot state.

use crate::node::Mode;
use crate::{ResourceSlot, TaskNode};
use embassy_time::Instant;

use super::*;

// ---- the slot machine (driver side) --------------------------------------

impl<P: 'static, const SLOTS: usize, const DEPTH: usize, const INTAKE: usize, const WATCH: usize>
    State<P, SLOTS, DEPTH, INTAKE, WATCH>
{
    pub(super) fn resolve(&mut self, watch: Option<u8>, outcome: TaskOutcome) {
        let Some(i) = watch.map(usize::from) else {
            return;
        };
        let Some(cell) = self.watch.get_mut(i) else {
            return;
        };
        match *cell {
            Watch::Pending => {
                *cell = Watch::Done(outcome);
                self.watchers[i].wake();
            }
            Watch::Abandoned => {
                *cell = Watch::Free;
                self.room_freed = true;
            }
            Watch::Free | Watch::Done(_) => {}
        }
    }

    fn reject(&mut self, key: Key, job: Job<P>, kind: RejectKind) {
        #[cfg(feature = "events")]
        crate::event::publish(crate::event::EventKind::ControllerRejected {
            slot: key,
            target: job.target.name,
            kind,
        });
        let _ = key;
        self.resolve(job.watch, TaskOutcome::Rejected { kind });
    }

    /// Slot `i` has no job any more: take the next queued one, or go idle.
    fn advance(&mut self, i: usize, now: Instant) {
        let slot = &mut self.slots[i];
        slot.owner = None;
        slot.owner_watch = None;
        slot.owner_inbox = None;
        slot.next = slot.queue.pop();
        let to = if slot.next.is_some() {
            SlotStatusKind::Admitting
        } else {
            SlotStatusKind::Idle
        };
        slot.set_status(to, now);
        self.seq = self.seq.wrapping_add(1);
        slot.seq = self.seq;
    }

    /// Apply every intake submission's policy, in submission order.
    pub(super) fn drain_intake(&mut self, now: Instant) {
        let mut drained = false;
        while let Some(p) = self.intake.pop() {
            drained = true;
            self.admit(p, now);
        }
        if drained {
            self.room_freed = true;
        }
    }

    fn slot_for(&mut self, key: Key) -> Option<usize> {
        if let Some(i) = self.slots.iter().position(|s| s.key == Some(key)) {
            return Some(i);
        }
        let i = self
            .slots
            .iter()
            .position(|s| s.key.is_none())
            .or_else(|| {
                self.slots
                    .iter()
                    .position(|s| s.status == SlotStatusKind::Idle)
            })?;
        self.slots[i].key = Some(key);
        Some(i)
    }

    fn admit(&mut self, p: Pending<P>, now: Instant) {
        let Some(i) = self.slot_for(p.key) else {
            return self.reject(p.key, p.job, RejectKind::NoFreeSlot);
        };
        let slot = &mut self.slots[i];
        if slot.status == SlotStatusKind::Idle {
            slot.next = Some(p.job);
            slot.set_status(SlotStatusKind::Admitting, now);
            self.seq = self.seq.wrapping_add(1);
            slot.seq = self.seq;
            return;
        }
        match p.policy {
            AdmissionPolicy::DropIfRunning => self.reject(p.key, p.job, RejectKind::SlotBusy),
            AdmissionPolicy::Queue => {
                if let Err(job) = slot.queue.push(p.job) {
                    self.reject(p.key, job, RejectKind::QueueFull);
                }
            }
            AdmissionPolicy::Replace => {
                // Latest wins: the job that would run next is the admitting
                // one (not yet on a node) if there is one, else the queue head.
                let (bumped, kind) = if let Some(next) = slot.next.as_mut() {
                    (
                        Some(core::mem::replace(next, p.job)),
                        RejectKind::SupersededByReplace,
                    )
                } else if let Some(head) = slot.queue.front_mut() {
                    (
                        Some(core::mem::replace(head, p.job)),
                        RejectKind::SupersededByReplace,
                    )
                } else {
                    // No room (DEPTH == 0) bounces the newcomer itself.
                    (slot.queue.push(p.job).err(), RejectKind::QueueFull)
                };
                let kept = kind == RejectKind::SupersededByReplace || bumped.is_none();
                let running = kept && slot.status == SlotStatusKind::Running;
                if let (true, Some(owner)) = (running, slot.owner) {
                    owner.request_shutdown();
                    slot.set_status(SlotStatusKind::Terminating, now);
                }
                if let Some(old) = bumped {
                    self.reject(p.key, old, kind);
                }
            }
        }
    }

    /// Resolve every owner whose node is down and advance its slot.
    pub(super) fn sweep(&mut self, now: Instant) {
        for i in 0..SLOTS {
            let slot = &self.slots[i];
            let Some(owner) = slot.owner else { continue };
            if slot.in_flight || owner.is_running() {
                continue;
            }
            let outcome = if owner.shutdown_requested() {
                TaskOutcome::Canceled
            } else {
                TaskOutcome::Completed
            };
            let watch = slot.owner_watch;
            self.resolve(watch, outcome);
            self.advance(i, now);
        }
    }

    fn reserved(&self, node: &TaskNode) -> bool {
        self.slots.iter().any(|s| s.reserves(node))
    }

    /// Pick one admitting job that can start now, reserve its node, and hand
    /// it out with its payload delivery. Jobs whose target cannot run at all
    /// are resolved on the way.
    pub(super) fn pick(&mut self, now: Instant) -> Option<(Admission, Delivery<P>)> {
        // Oldest admission first, so jobs waiting for pool members are
        // granted in arrival order, whatever their slots' indices.
        let mut waiting = [false; SLOTS];
        loop {
            let mut best: Option<usize> = None;
            for (i, slot) in self.slots.iter().enumerate() {
                if slot.owner.is_none()
                    && slot.next.is_some()
                    && !waiting[i]
                    && best.is_none_or(|b| (slot.seq.wrapping_sub(self.slots[b].seq) as i32) < 0)
                {
                    best = Some(i);
                }
            }
            let i = best?;
            let Some(job) = self.slots[i].next.as_ref() else {
                continue;
            };
            let key = self.slots[i].key.unwrap_or(Key::Name(job.target.name));
            match self.choose(job.target) {
                Choice::Wait => waiting[i] = true,
                Choice::Refuse(outcome) => {
                    if let Some(job) = self.slots[i].next.take() {
                        match outcome {
                            TaskOutcome::Rejected { kind } => self.reject(key, job, kind),
                            other => self.resolve(job.watch, other),
                        }
                    }
                    self.advance(i, now);
                }
                Choice::Run(node, inbox) => {
                    let slot = &mut self.slots[i];
                    let job = slot.next.take()?;
                    slot.owner = Some(node);
                    slot.owner_watch = job.watch;
                    slot.owner_inbox = inbox;
                    slot.in_flight = true;
                    let delivery = inbox.map(|inbox| (inbox, job.payload));
                    return Some((Admission { slot: i, node }, delivery));
                }
            }
        }
    }

    fn choose(&self, target: &'static JobTarget<P>) -> Choice<P> {
        match target.kind {
            TargetKind::Node { node, inbox } => {
                if node.is_disabled() || node.is_held() || node.is_detached() {
                    Choice::Refuse(TaskOutcome::Rejected {
                        kind: RejectKind::TargetDisabled,
                    })
                } else if node.is_running() || self.reserved(node) {
                    Choice::Refuse(TaskOutcome::Rejected {
                        kind: RejectKind::AlreadyRunning,
                    })
                } else if !node.has_spawn() || node.mode() == Mode::Pause {
                    Choice::Refuse(TaskOutcome::Failed)
                } else {
                    Choice::Run(node, inbox)
                }
            }
            #[cfg(feature = "pool")]
            TargetKind::Pool { pool, inboxes } => {
                let (_, max) = pool.bounds();
                let members = pool.nodes();
                let mut active = 0usize;
                let mut usable = false;
                let mut free = None;
                for (m, node) in members.iter().enumerate() {
                    let busy = node.is_running() || self.reserved(node);
                    active += busy as usize;
                    let enabled = !node.is_disabled() && !node.is_held() && !node.is_detached();
                    usable |= enabled && node.has_spawn() && node.mode() != Mode::Pause;
                    if free.is_none()
                        && !busy
                        && enabled
                        && node.has_spawn()
                        && node.mode() != Mode::Pause
                    {
                        free = Some(m);
                    }
                }
                if !usable {
                    return Choice::Refuse(TaskOutcome::Rejected {
                        kind: RejectKind::TargetDisabled,
                    });
                }
                match free {
                    Some(m) if active < max as usize => Choice::Run(&members[m], inboxes.get(m)),
                    _ => Choice::Wait,
                }
            }
        }
    }

    /// The driver's spawn of slot `i` finished.
    pub(super) fn admitted(
        &mut self,
        i: usize,
        spawned: bool,
        now: Instant,
    ) -> Option<&'static ResourceSlot<P>> {
        let slot = &mut self.slots[i];
        slot.in_flight = false;
        if spawned {
            slot.set_status(SlotStatusKind::Running, now);
            if let (true, Some(owner)) = (self.closed, slot.owner) {
                // The teardown may already have passed this node.
                owner.request_shutdown();
                slot.set_status(SlotStatusKind::Terminating, now);
            }
            None
        } else {
            let inbox = slot.owner_inbox;
            let watch = slot.owner_watch;
            self.resolve(watch, TaskOutcome::Failed);
            self.advance(i, now);
            inbox
        }
    }

    pub(super) fn close(&mut self, now: Instant) {
        self.closed = true;
        while let Some(p) = self.intake.pop() {
            self.reject(p.key, p.job, RejectKind::ShuttingDown);
        }
        self.room_freed = true;
        for i in 0..SLOTS {
            // A slot with work always has its key; the target's name (the
            // default key) stands in otherwise, never a made-up id.
            let key = self.slots[i].key;
            while let Some(job) = self.slots[i].queue.pop() {
                let key = key.unwrap_or(Key::Name(job.target.name));
                self.reject(key, job, RejectKind::ShuttingDown);
            }
            if let Some(job) = self.slots[i].next.take() {
                let key = key.unwrap_or(Key::Name(job.target.name));
                self.reject(key, job, RejectKind::ShuttingDown);
            }
            if self.slots[i].owner.is_none() {
                self.slots[i].set_status(SlotStatusKind::Idle, now);
            }
        }
    }
}

/// A payload on its way into an inbox.
pub(super) type Delivery<P> = Option<(&'static ResourceSlot<P>, P)>;

pub(super) enum Choice<P: 'static> {
    #[cfg_attr(not(feature = "pool"), allow(dead_code))]
    Wait,
    Refuse(TaskOutcome),
    Run(&'static TaskNode, Option<&'static ResourceSlot<P>>),
}
