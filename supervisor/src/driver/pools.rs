//! The driver's pool pass (`run()`, `run_pools`): grow and shrink one
//! member at a time, each decision synchronous. A shrink asks the member
//! to stop and returns; its ack is awaited across the driver's own wait
//! for the next change ([`PoolDrive`]), not in a wait of its own.

use core::ops::Range;

use embassy_executor::Spawner;
use embassy_time::Instant;

use crate::clock::Tick;
use crate::fault::NodeFault;
use crate::notify;
use crate::pool::{Pool, PoolAction, PoolLoad};
use crate::{Supervisor, TaskNode};

/// What the pool pass keeps across the driver's waits: the member it
/// asked to stop and not yet seen ack, with the end of its ack window, and
/// the epoch the driver's next wait compares against.
#[derive(Default)]
pub(super) struct PoolDrive {
    shrinking: Option<(&'static TaskNode, Tick)>,
    since: u32,
}

impl PoolDrive {
    /// `m` was asked to stop at `now`: its ack window (its `ack_timeout`)
    /// runs from there, as every stop's does. Returns the window's end, the
    /// driver's next deadline: the ack cannot have come yet (the member
    /// acks when it next runs), and when it comes it is a change that ends
    /// the driver's wait.
    ///
    /// The request made a change after [`since`](Self::since) was read:
    /// `since` moves past it if it is the only one
    /// (`notify::past_own_change`), so the driver's own request does not
    /// end its wait and run every pass again at once.
    fn asked(&mut self, m: &'static TaskNode, now: Instant) -> Instant {
        let due = now.as_ticks().saturating_add(m.ack_timeout().as_ticks());
        self.shrinking = Some((m, Tick::new(due)));
        notify::past_own_change(&mut self.since);
        Instant::from_ticks(due)
    }

    /// The epoch the last pass read first: the driver's wait after the
    /// passes ends at any change after it (but the pass's own request).
    pub(super) fn since(&self) -> u32 {
        self.since
    }

    /// The member asked to stop: `Ok(None)` once it acked (or none was
    /// asked), `Ok(Some(due))` while its window is open, the missed ack
    /// once it closed. The ack is that of the instance asked: a member
    /// down, or up in a fresh activation, has acked.
    fn ack_pending(&mut self) -> Result<Option<Instant>, NodeFault> {
        let Some((m, due)) = self.shrinking else {
            return Ok(None);
        };
        if !m.state().is_stopping() {
            self.shrinking = None;
            #[cfg(feature = "events")]
            crate::event::publish(crate::event::EventKind::PoolShrank { node: m.name });
            return Ok(None);
        }
        if crate::clock::now() >= due.get() {
            self.shrinking = None;
            return Err(crate::supervisor::missed_ack(m).into());
        }
        Ok(Some(Instant::from_ticks(due.get())))
    }
}

impl<const N: usize, const USES: u8> Supervisor<N, USES> {
    /// One evaluation of every pool; returns the earliest deadline the
    /// driver must wake at (a policy's, or the ack window of the member
    /// it asked to stop). A shrink's ack is not awaited here: the member
    /// stays in `drive` and the pass ends, the ack (a change) ends the
    /// driver's wait, and the next pass takes it. No pool acts meanwhile
    /// (one member at a time), while control and the controller go on.
    /// This future waits only for a member's bring-up that must (a closed
    /// gate, or a first `Busy`: one executor pass). It reads the epoch
    /// first, for the driver's wait ([`PoolDrive::since`]): the first pass
    /// of the driver's turn.
    pub(super) async fn scale_pools(
        &self,
        drive: &mut PoolDrive,
        spawner: Spawner,
    ) -> Result<Option<Instant>, NodeFault> {
        drive.since = notify::epoch();
        let mut pass = PoolPass::default();
        loop {
            if let Some(due) = drive.ack_pending()? {
                return Ok(Some(due));
            }
            match self.pool_step(&mut pass, spawner) {
                PoolStep::Done(deadline) => return Ok(deadline),
                PoolStep::Grow(m, era) => {
                    let grew = self.bring_up(m, spawner, era).await.is_ok();
                    grown(m, grew);
                    if !grew {
                        pass.next_pool();
                    }
                }
                PoolStep::Shrink(m, now) => return Ok(Some(drive.asked(m, now))),
            }
        }
    }

    /// Decide and act until a pool needs a wait or every pool holds. Each
    /// step changes a pool's running count by one, so a pool takes at most
    /// `members + 1` steps per pass.
    ///
    /// Every policy asked in one step is asked at the same instant: the
    /// step is synchronous (a bring-up that must wait returns), so one clock
    /// read serves it (a read is a call into the time driver).
    fn pool_step(&self, pass: &mut PoolPass, spawner: Spawner) -> PoolStep {
        let now = Instant::from_ticks(crate::clock::now());
        while let Some(pool) = self.graph().pools.get(pass.pool) {
            let slots = pool.slots();
            if pass.steps > slots.len() {
                pass.next_pool();
                continue;
            }
            pass.steps += 1;
            let decision = pool.decide(self.load_of(*pool), now);
            if let Some(at) = decision.recheck_at {
                pass.earliest = Some(pass.earliest.map_or(at, |e| e.min(at)));
            }
            let acted = match decision.action {
                PoolAction::Hold => false,
                PoolAction::Grow => {
                    // Noted before `grow_member` checks `halted`: a teardown
                    // after that check ends this era, and the grow backs out.
                    let era = self.era();
                    match self.grow_member(slots) {
                        None => false,
                        Some(m) => match self.bring_up_now(m, spawner, era) {
                            Some(result) => {
                                grown(m, result.is_ok());
                                result.is_ok()
                            }
                            None => return PoolStep::Grow(m, era),
                        },
                    }
                }
                PoolAction::Shrink => match self.shrink_member(slots) {
                    Some(m) => return PoolStep::Shrink(m, now),
                    None => false,
                },
            };
            if !acted {
                pass.next_pool();
            }
        }
        PoolStep::Done(pass.earliest)
    }

    fn load_of(&self, pool: &dyn Pool) -> PoolLoad {
        let (min, max) = pool.bounds();
        let (mut running, mut busy, mut idle) = (0usize, 0usize, 0usize);
        for m in pool.nodes() {
            // One flag read per member: the three counts agree.
            let f = m.state();
            let (up, b) = (f.is_up(), f.is_busy());
            running += up as usize;
            busy += b as usize;
            idle += (up && !b) as usize;
        }
        // Counts are u8: a pool reports at most 255 of each.
        let count = |n: usize| n.min(u8::MAX as usize) as u8;
        PoolLoad {
            running: count(running),
            idle: count(idle),
            busy: count(busy),
            min,
            max,
        }
    }

    /// The lowest down member of `slots` (a pool's) that may run: enabled,
    /// not held, attached, and with every dependency up (and ready, for
    /// `ready` deps). `None` if none can, or if the graph is torn down (it
    /// stays down until started again).
    fn grow_member(&self, mut slots: Range<usize>) -> Option<&'static TaskNode> {
        if self.is_halted() {
            return None;
        }
        slots.find_map(|slot| {
            let m = self.graph().node(slot)?;
            let down_and_free = m.state().may_come_up();
            (down_and_free && self.deps_up(slot)).then_some(m)
        })
    }

    /// Ask the highest idle running member of `slots` (a pool's) to stop,
    /// re-checking idleness in the same atomic step that requests the stop.
    /// `None` if none is idle.
    fn shrink_member(&self, slots: Range<usize>) -> Option<&'static TaskNode> {
        slots
            .rev()
            .filter_map(|slot| self.graph().node(slot))
            .find(|m| m.request_shutdown_if_idle())
    }

    /// Every dependency of `slot` is running (a `#[cfg]`-removed dependency
    /// counts as satisfied), and every `ready` dependency is ready.
    fn deps_up(&self, slot: usize) -> bool {
        let g = self.graph();
        let up = g.deps[slot]
            .iter()
            .all(|&d| g.node(d as usize).is_none_or(|n| n.is_running()));
        #[cfg(feature = "readiness")]
        let up = up
            && g.ready_deps[slot]
                .iter()
                .all(|&d| g.node(d as usize).is_none_or(|n| n.is_ready()));
        up
    }
}

/// How far one pass over the pools got, kept across its waits.
#[derive(Default)]
struct PoolPass {
    pool: usize,
    steps: usize,
    earliest: Option<Instant>,
}

impl PoolPass {
    fn next_pool(&mut self) {
        self.pool += 1;
        self.steps = 0;
    }
}

/// What a pass over the pools needs next.
enum PoolStep {
    /// Every pool holds; wake again at this deadline, if any.
    Done(Option<Instant>),
    /// This member's bring-up (begun in this era) must wait for a closed gate.
    Grow(&'static TaskNode, u32),
    /// This member was asked to stop at this instant: its ack is the next
    /// thing to see.
    Shrink(&'static TaskNode, Instant),
}

fn grown(m: &'static TaskNode, grew: bool) {
    #[cfg(feature = "events")]
    if grew {
        crate::event::publish(crate::event::EventKind::PoolGrew { node: m.name });
    }
    let _ = (m, grew);
}
