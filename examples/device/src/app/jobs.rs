//! Long jobs through the controller: two lanes ("calibrate", "update"), each
//! a slot whose target is an OnDemand node. `POST /api/jobs` submits with the
//! policy the client chose (Queue or Replace); a watcher task per job in
//! flight records the outcome, which `GET /api/jobs` and the event log show.

use core::cell::RefCell;

use embassy_supervisor::TaskNode;
use embassy_supervisor::controller::{
    AdmissionPolicy, Controller, ControllerSpec, JobTarget, TaskOutcome,
};
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_time::{Duration, Instant, Timer};

use super::graph::{CAL_IN, CALIBRATE, UPD_IN, UPDATE};
use super::log;

/// One job's payload: who it is and how long it works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    pub id: u32,
    pub ms: u32,
}

/// Two slots, 4 queued per slot, 4 in the intake, 8 watched.
pub static CTRL: Controller<Job, 2, 4, 4, 8> = Controller::new();
static T_CAL: JobTarget<Job> = JobTarget::node_with_inbox(&CALIBRATE, &CAL_IN);
static T_UPD: JobTarget<Job> = JobTarget::node_with_inbox(&UPDATE, &UPD_IN);

/// Watchers in flight (one per accepted job until its outcome arrives).
pub const WATCHERS: usize = 8;
/// Longest job a client may ask for.
pub const MAX_JOB_MS: u32 = 60_000;

/// The lanes a client can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    Calibrate,
    Update,
}

impl Lane {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "calibrate" => Some(Self::Calibrate),
            "update" => Some(Self::Update),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Calibrate => "calibrate",
            Self::Update => "update",
        }
    }

    /// The OnDemand node that runs this lane's jobs.
    pub fn node(self) -> &'static TaskNode {
        match self {
            Self::Calibrate => &CALIBRATE,
            Self::Update => &UPDATE,
        }
    }

    fn target(self) -> &'static JobTarget<Job> {
        match self {
            Self::Calibrate => &T_CAL,
            Self::Update => &T_UPD,
        }
    }
}

/// What became of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobState {
    Submitted,
    Running,
    Done(TaskOutcome),
}

/// The job table row.
#[derive(Clone, Copy, Debug)]
pub struct JobRow {
    pub id: u32,
    pub lane: Lane,
    pub policy: AdmissionPolicy,
    pub ms: u32,
    pub state: JobState,
    /// Order in which jobs started running (0: never started).
    pub started_seq: u32,
    /// Milliseconds since boot: accepted, started (0: not yet), ended (0: not yet).
    pub submitted_ms: u32,
    pub started_ms: u32,
    pub ended_ms: u32,
}

impl JobRow {
    fn finished(&self) -> bool {
        matches!(self.state, JobState::Done(_))
    }
}

/// Rows kept. A row is evicted only once its job has finished (oldest
/// finished first) and only to make room for a new job; at most `WATCHERS`
/// jobs are unfinished, so a new job always finds a row. Evictions are
/// counted (`evicted` in `GET /api/jobs`), and `GET /api/jobs/{id}` of an
/// evicted id answers `410`.
pub const ROWS: usize = 32;
/// Jobs one lane holds at once: one running plus the controller's queue
/// depth. A Queue submission beyond it is refused before it is accepted.
pub const LANE_CAPACITY: usize = 1 + 4;

struct Table {
    rows: [Option<JobRow>; ROWS],
    next_id: u32,
    started: u32,
    evicted: u32,
}

static TABLE: Mutex<CriticalSectionRawMutex, RefCell<Table>> = Mutex::new(RefCell::new(Table {
    rows: [None; ROWS],
    next_id: 1,
    started: 0,
    evicted: 0,
}));

fn now_ms() -> u32 {
    Instant::now().as_millis() as u32
}

fn update(id: u32, f: impl FnOnce(&mut JobRow, &mut u32)) {
    TABLE.lock(|t| {
        let mut t = t.borrow_mut();
        let t = &mut *t;
        if let Some(row) = t.rows.iter_mut().flatten().find(|r| r.id == id) {
            f(row, &mut t.started);
        }
    })
}

/// A copy of the table, oldest first, and how many rows were evicted.
pub fn rows() -> ([Option<JobRow>; ROWS], u32) {
    TABLE.lock(|t| {
        let t = t.borrow();
        let mut out = t.rows;
        out.sort_unstable_by_key(|r| r.map_or(u32::MAX, |r| r.id));
        (out, t.evicted)
    })
}

/// One job by id.
pub enum Lookup {
    Found(JobRow),
    /// Its row was evicted (it had finished).
    Evicted,
    /// No such id was ever accepted.
    Unknown,
}

pub fn get(id: u32) -> Lookup {
    TABLE.lock(|t| {
        let t = t.borrow();
        match t.rows.iter().flatten().find(|r| r.id == id) {
            Some(r) => Lookup::Found(*r),
            None if id >= 1 && id < t.next_id => Lookup::Evicted,
            None => Lookup::Unknown,
        }
    })
}

/// Why a job could not be submitted (nothing was recorded for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubmitFail {
    /// Every watcher is busy: too many jobs in flight.
    Busy,
    /// The lane already holds `LANE_CAPACITY` jobs (Queue policy).
    QueueFull,
    /// The lane's node, or one it depends on, is deactivated: the
    /// controller would reject the job (`target_disabled`).
    TargetDisabled,
}

/// Submit a job; its id, or why it was refused. A refused job leaves no
/// row: only accepted jobs are shown.
pub fn submit(
    spawner: embassy_executor::SendSpawner,
    lane: Lane,
    policy: AdmissionPolicy,
    ms: u32,
) -> Result<u32, SubmitFail> {
    if super::guard::held_down(lane.node()) {
        return Err(SubmitFail::TargetDisabled);
    }
    TABLE.lock(|t| {
        let mut t = t.borrow_mut();
        let t = &mut *t;
        let in_lane = t
            .rows
            .iter()
            .flatten()
            .filter(|r| r.lane == lane && !r.finished())
            .count();
        if policy != AdmissionPolicy::Replace && in_lane >= LANE_CAPACITY {
            return Err(SubmitFail::QueueFull);
        }
        let id = t.next_id;
        let job = Job { id, ms };
        let spec = match policy {
            AdmissionPolicy::Replace => ControllerSpec::replace(lane.target(), job),
            _ => ControllerSpec::queue(lane.target(), job),
        }
        .with_slot(lane.name());
        let token = watch(spec, id).map_err(|_| SubmitFail::Busy)?;
        // A free row, else the oldest finished one (there is one: at most
        // WATCHERS < ROWS jobs are unfinished).
        let row = match t.rows.iter().position(|r| r.is_none()) {
            Some(i) => i,
            None => {
                let i = t
                    .rows
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.is_some_and(|r| r.finished()))
                    .min_by_key(|(_, r)| r.map_or(u32::MAX, |r| r.id))
                    .map(|(i, _)| i)
                    .unwrap_or(0);
                t.evicted += 1;
                i
            }
        };
        t.next_id += 1;
        t.rows[row] = Some(JobRow {
            id,
            lane,
            policy,
            ms,
            state: JobState::Submitted,
            started_seq: 0,
            submitted_ms: now_ms(),
            started_ms: 0,
            ended_ms: 0,
        });
        spawner.spawn(token);
        Ok(id)
    })
}

/// Watch one job to its outcome.
#[embassy_executor::task(pool_size = WATCHERS)]
async fn watch(spec: ControllerSpec<Job>, id: u32) {
    let outcome = CTRL.submit_and_watch(spec).await;
    update(id, |r, _| {
        r.state = JobState::Done(outcome);
        r.ended_ms = now_ms().max(1);
    });
    log::push("job", "", outcome_name(outcome), id);
}

/// The JSON name of an outcome.
pub fn outcome_name(o: TaskOutcome) -> &'static str {
    match o {
        TaskOutcome::Completed => "completed",
        TaskOutcome::Canceled => "canceled",
        TaskOutcome::Failed => "failed",
        TaskOutcome::Rejected { kind } => log::reject_name(kind),
    }
}

/// The common body of both lanes: mark the job running, work `ms` (a timer
/// standing in for the real work), beating, until done or stopped.
async fn run_job(node: &'static TaskNode, job: Job) {
    update(job.id, |r, started| {
        *started += 1;
        r.started_seq = *started;
        r.state = JobState::Running;
        r.started_ms = now_ms().max(1);
    });
    log::push("job_started", node.spec().name, "", job.id);
    let end = Instant::now() + Duration::from_millis(job.ms as u64);
    let _ = node
        .run_cancellable(async {
            while Instant::now() < end {
                node.beat();
                Timer::at(end.min(Instant::now() + Duration::from_millis(200))).await;
            }
        })
        .await;
}

/// CALIBRATE: a long calibration run (the sensor stays up underneath).
pub async fn calibrate_worker(node: &'static TaskNode, job: Job) {
    run_job(node, job).await
}

/// UPDATE: a long download-and-apply (needs the network).
pub async fn update_worker(node: &'static TaskNode, job: Job) {
    run_job(node, job).await
}
