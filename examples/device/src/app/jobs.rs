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
}

const ROWS: usize = 16;

struct Table {
    rows: [Option<JobRow>; ROWS],
    next_id: u32,
    started: u32,
}

static TABLE: Mutex<CriticalSectionRawMutex, RefCell<Table>> = Mutex::new(RefCell::new(Table {
    rows: [None; ROWS],
    next_id: 1,
    started: 0,
}));

fn update(id: u32, f: impl FnOnce(&mut JobRow, &mut u32)) {
    TABLE.lock(|t| {
        let mut t = t.borrow_mut();
        let t = &mut *t;
        if let Some(row) = t.rows[id as usize % ROWS].as_mut().filter(|r| r.id == id) {
            f(row, &mut t.started);
        }
    })
}

/// A copy of the table, newest last.
pub fn rows() -> [Option<JobRow>; ROWS] {
    TABLE.lock(|t| {
        let t = t.borrow();
        let mut out = [None; ROWS];
        let first = t.next_id.saturating_sub(ROWS as u32).max(1);
        for (o, id) in out.iter_mut().zip(first..t.next_id) {
            *o = t.rows[id as usize % ROWS].filter(|r| r.id == id);
        }
        out
    })
}

/// Why a job could not be submitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubmitFail {
    /// Every watcher is busy: too many jobs in flight.
    Busy,
}

/// Submit a job; its id, or `Busy` when `WATCHERS` jobs are in flight.
pub fn submit(
    spawner: embassy_executor::SendSpawner,
    lane: Lane,
    policy: AdmissionPolicy,
    ms: u32,
) -> Result<u32, SubmitFail> {
    let id = TABLE.lock(|t| {
        let mut t = t.borrow_mut();
        let id = t.next_id;
        t.next_id += 1;
        t.rows[id as usize % ROWS] = Some(JobRow {
            id,
            lane,
            policy,
            ms,
            state: JobState::Submitted,
            started_seq: 0,
        });
        id
    });
    let job = Job { id, ms };
    let spec = match policy {
        AdmissionPolicy::Replace => ControllerSpec::replace(lane.target(), job),
        _ => ControllerSpec::queue(lane.target(), job),
    }
    .with_slot(lane.name());
    match watch(spec, id) {
        Ok(token) => {
            spawner.spawn(token);
            Ok(id)
        }
        Err(_) => {
            update(id, |r, _| {
                r.state = JobState::Done(TaskOutcome::Rejected {
                    kind: embassy_supervisor::controller::RejectKind::QueueFull,
                })
            });
            Err(SubmitFail::Busy)
        }
    }
}

/// Watch one job to its outcome.
#[embassy_executor::task(pool_size = WATCHERS)]
async fn watch(spec: ControllerSpec<Job>, id: u32) {
    let outcome = CTRL.submit_and_watch(spec).await;
    update(id, |r, _| r.state = JobState::Done(outcome));
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
