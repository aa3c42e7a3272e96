//! The `log` backend: supervisor log lines reach the application's `log`
//! logger under target `embassy_supervisor` (a failed spawn at `warn`, every
//! driven transition at `debug`), and `log_to_stderr` prints them on stderr
//! in one call.
#![cfg(all(feature = "log", not(feature = "defmt")))]

mod common;

use std::sync::Mutex;

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use log::{Level, LevelFilter, Log, Metadata, Record};

fn spawn_refused(_: &'static TaskNode, _: Spawner) -> Result<(), SpawnError> {
    Err(SpawnError::Busy)
}

static A: TaskNode = TaskNode::new(
    &NodeSpec::new("A", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static F: TaskNode = TaskNode::new(
    &NodeSpec::new("F", Mode::OnDemand)
        .with_spawn(spawn_refused)
        .at(1),
);
static GRAPH: Graph<2> = Graph::new([Some(&A), Some(&F)], [&[], &[]]);
static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

/// Captures every record: (level, target, message).
struct Capture(Mutex<Vec<(Level, String, String)>>);

impl Log for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn log(&self, r: &Record<'_>) {
        self.0
            .lock()
            .unwrap()
            .push((r.level(), r.target().to_string(), r.args().to_string()));
    }
    fn flush(&self) {}
}

static CAPTURE: Capture = Capture(Mutex::new(Vec::new()));

/// Runs in a child process (see `stderr_logger_prints_one_line_per_record`).
const CHILD: &str = "EMBASSY_SUPERVISOR_STDERR_CHILD";

#[embassy_executor::task]
async fn script(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    assert!(SUP.start_node(&F, spawner).await.is_err());
    SUP.stop_node(&A).await.unwrap();
    common::pass();
}

#[test]
fn supervisor_lines_reach_the_log_facade() {
    if std::env::var_os(CHILD).is_some() {
        // The child installs the stderr logger instead.
        embassy_supervisor::log_to_stderr(LevelFilter::Debug).unwrap();
        assert!(
            embassy_supervisor::log_to_stderr(LevelFilter::Debug).is_err(),
            "a second logger is refused"
        );
        common::run(&[&A, &F], |s| s.spawn(script(s).unwrap()));
        return;
    }
    log::set_logger(&CAPTURE).unwrap();
    log::set_max_level(LevelFilter::Trace);
    common::run(&[&A, &F], |s| s.spawn(script(s).unwrap()));
    let got: Vec<_> = CAPTURE
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, target, _)| target == "embassy_supervisor")
        .map(|(l, _, m)| (*l, m.clone()))
        .collect();
    let want = [
        (Level::Debug, "`A`: Started"),
        (Level::Debug, "`F`: SpawnFailed"),
        (Level::Warn, "node `F` not spawned: its task pool is busy"),
        (Level::Debug, "`A`: Stopping"),
        (Level::Debug, "`A`: Stopped"),
        (Level::Debug, "`A`: Exited"),
    ];
    // Each line starts as expected.
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((level, msg), (want_level, want_msg)) in got.iter().zip(want) {
        assert_eq!(*level, want_level, "{msg}");
        assert!(
            msg.starts_with(want_msg),
            "{msg:?} should start with {want_msg:?}"
        );
    }
}

#[test]
fn stderr_logger_prints_one_line_per_record() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "supervisor_lines_reach_the_log_facade",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "child failed: {out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("embassy_supervisor:"))
        .collect();
    assert_eq!(lines.len(), 6, "{stderr}");
    // `[seconds.micros] LEVEL target: message`
    let warn = lines[2];
    assert!(warn.starts_with('['), "{warn}");
    let (stamp, rest) = warn[1..].split_once("] ").unwrap();
    assert!(stamp.trim().parse::<f64>().is_ok(), "{warn}");
    assert!(
        rest.starts_with("WARN  embassy_supervisor: node `F` not spawned: its task pool is busy"),
        "{warn}"
    );
    assert!(lines[0].ends_with("DEBUG embassy_supervisor: `A`: Started"));
}
