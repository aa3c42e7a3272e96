//! The one host-test harness of our integration tests is the published test
//! kit (`embassy-supervisor-testkit`, `testkit/` in this workspace), so what
//! users get is what every test here runs on and it cannot rot. Each test
//! runs a driver task on a fresh `embassy_executor::Executor` thread over the
//! embassy-time mock clock:
//!
//! - Fails fast: a test that does not call [`pass`] within [`WALL_LIMIT`]
//!   fails, naming every node of the graph that still awaits an ack (stop
//!   requested, still running) or is still running: the node that hung.
//! - A panic inside the driver (a failed `assert!`) fails the test with its
//!   message.
//! - The mock clock moves only when a test calls [`advance`]: happy paths
//!   resolve by signal, timeouts are observed on purpose.
//! - Tests in one binary run one at a time (they share the mock clock).
//! - [`spawn_worker`] is the canonical worker's spawn fn: serves until asked
//!   to stop, acks, records its exit.
#![allow(unused_imports)]

pub use embassy_supervisor_testkit::*;
