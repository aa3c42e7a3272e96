//! # embassy-supervisor-testkit
//!
//! Run an [`embassy-supervisor`](embassy_supervisor) graph in a host test:
//! a std executor on its own thread over embassy-time's mock clock, time that
//! moves only when the test says so, a recorded log of lifecycle events to
//! assert their order, and test-side fault injection. The crate's own
//! integration tests run on it.
//!
//! Add it as a dev-dependency (it is `std`-only; the graph under test is the
//! same `static` your firmware uses):
//!
//! ```toml
//! [dev-dependencies]
//! embassy-supervisor-testkit = "0.4"
//! ```
//!
//! Why a companion crate and not a `testing` feature of the runtime: the
//! runtime is `#![no_std]` with additive features, and a test kit needs std
//! threads, embassy's `platform-std` executor, the `mock-driver` time driver
//! and `critical-section/std`, none of which may ever reach a firmware build.
//! As a dev-dependency they exist in test builds only.
//!
//! ## A test
//!
//! ```
//! use embassy_executor::Spawner;
//! use embassy_supervisor::{Supervisor, supervisor_graph};
//! use embassy_supervisor_testkit::{self as kit, Event, fault};
//! use embassy_time::Duration;
//!
//! supervisor_graph! {
//!     node NET = Terminate, deps: [], task: kit::serve;
//!     node APP = Terminate, deps: [NET], task: kit::serve;
//! }
//! static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
//!
//! #[embassy_executor::task]
//! async fn driver(spawner: Spawner) {
//!     SUP.start(spawner).await.unwrap();
//!     kit::wait_until(|| APP.is_running(), Duration::from_millis(10)).await.unwrap();
//!     SUP.teardown().await.unwrap();
//!     // Dependents stop first.
//!     assert_eq!(kit::log::order(Event::Acked), ["APP", "NET"]);
//!
//!     SUP.start(spawner).await.unwrap();
//!     // APP will not ack its next stop: the teardown names it after 2 s.
//!     fault::ignore_stop(&APP);
//!     let (r, ()) = embassy_futures::join::join(
//!         SUP.teardown(),
//!         kit::advance_after_idle(embassy_supervisor::SHUTDOWN_ACK_TIMEOUT),
//!     )
//!     .await;
//!     assert_eq!(r.unwrap_err().node.name, "APP");
//!     kit::pass();
//! }
//!
//! # fn main() {
//! kit::run(&kit::nodes_of(&GRAPH), |s| s.spawn(driver(s).unwrap()));
//! # }
//! ```
//!
//! - [`run`] starts the executor, spawns your driver task and waits for it to
//!   call [`pass`]; a test that hangs fails after [`WALL_LIMIT`] naming every
//!   node that was asked to stop and never acked; a failed `assert!` in the
//!   driver fails the test with its message. Tests in one binary take turns
//!   (they share the mock clock), and each starts with an empty log and no
//!   faults.
//! - Time: [`settle`] lets every ready task run to its next await;
//!   [`advance`] moves the mock clock; [`advance_after_idle`] does both, to
//!   join with an operation that must time out; [`wait_until`] settles and
//!   steps the clock until a condition holds or a timeout passes.
//! - [`log`]: what happened, in order. [`serve`] (a `task:` worker) and
//!   [`spawn_worker`] (a [`SpawnFn`](embassy_supervisor::SpawnFn)) record it;
//!   your own tasks call [`log::record`].
//! - [`fault`]: make a node ignore its stop, refuse a spawn, or withhold a
//!   resource so its gate never opens; with feature `fault-inject`, inject
//!   the runtime's own faults (`fault::inject`: stall, wedge, crash, hog).
//! - [`model`]: a seeded generator and `MODEL_SEED` replay for randomized
//!   model tests.
//! - [`schedule`]: run a verb while resource slots fill at given mock
//!   milliseconds, and read when each node was spawned.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod fault;
mod harness;
pub mod log;
pub mod model;
pub mod schedule;
mod worker;

pub use harness::{
    TimedOut, WALL_LIMIT, advance, advance_after_idle, advance_in_steps, describe, nodes_of, pass,
    run, settle, stepped, wait_until,
};
pub use log::Event;
pub use worker::{serve, spawn_worker, worker};
