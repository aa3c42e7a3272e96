//! # embassy-supervisor
//!
//! A dependency-ordered task-lifecycle supervisor for the
//! [embassy](https://embassy.dev) async embedded framework: `no_std`, no
//! allocator, no `unsafe`, HAL-agnostic.
//!
//! Three static pieces: [`TaskNode`] (one per task: the task's half of the
//! lifecycle protocol), [`Graph`] (node slots, dependencies, and the
//! compile-time dependency order) and [`Supervisor`] (the verbs). Declare the
//! graph with `supervisor_graph!` (feature `macros`) or by hand.
//!
//! Every outcome is a value: a missed shutdown ack is a [`ShutdownTimeout`]
//! naming the node, an empty resource slot is a `SpawnError::Busy`, a full
//! control mailbox is a [`ControlQueueFull`]. The library never panics on them.
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod log;

mod cancel;
mod driver;
mod error;
mod graph;
mod node;
mod notify;
mod resource;
mod spec;
mod supervisor;
mod wait;

#[cfg(feature = "control")]
mod control;
#[cfg(feature = "pool")]
mod pool;

#[cfg(feature = "controller")]
pub mod controller;
#[cfg(feature = "events")]
pub mod event;
#[cfg(feature = "trace")]
pub mod trace;

pub use error::{Aborted, ControlQueueFull, RunError, ShutdownTimeout};
pub use graph::Graph;
pub use node::{Mode, SpawnFn, TaskNode};
pub use resource::{Gate, Lent, Provided, ResourceSlot, SpawnerSlot};
pub use spec::NodeSpec;
pub use supervisor::{DEFAULT_SLOT_TIMEOUT, SHUTDOWN_ACK_TIMEOUT, Supervisor};

#[cfg(feature = "control")]
pub use control::{
    CONTROL_QUEUE_DEPTH, ControlCommand, ControlOp, request_control, try_request_control,
    wait_control,
};
#[cfg(feature = "pool")]
pub use pool::{
    Decision, DeferredShrink, ElasticPool, Pool, PoolAction, PoolLoad, ScalingPolicy, request_scale,
};

#[cfg(feature = "macros")]
pub use embassy_supervisor_macros::{compose_graph, supervisor_fragment, supervisor_graph};

/// Re-exports the generated code relies on; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use embassy_executor;
    pub use embassy_time;

    use embassy_executor::SpawnError;

    /// The value a closure `spawn:` body may end with: `()` (the value of
    /// embassy 0.10's `Spawner::spawn`) or an explicit
    /// `Result<(), SpawnError>`. The macro gives such a closure the return
    /// type `Result<(), SpawnError>` so `?` works in it, and converts the
    /// body's value through this.
    #[diagnostic::on_unimplemented(
        message = "a `spawn:` closure body must end in `()` (e.g. `s.spawn(token)`) or a `Result<(), SpawnError>`, not `{Self}`",
        label = "the closure's value"
    )]
    pub trait IntoSpawnResult {
        /// The spawn's outcome.
        fn into_spawn_result(self) -> Result<(), SpawnError>;
    }

    impl IntoSpawnResult for () {
        fn into_spawn_result(self) -> Result<(), SpawnError> {
            Ok(())
        }
    }

    impl IntoSpawnResult for Result<(), SpawnError> {
        fn into_spawn_result(self) -> Result<(), SpawnError> {
            self
        }
    }

    /// A free fn rather than a method call so a body ending in `Ok(())`
    /// infers its error type from the single matching impl.
    pub fn spawn_result(value: impl IntoSpawnResult) -> Result<(), SpawnError> {
        value.into_spawn_result()
    }
}

// The README's examples are compiled as doctests, so they cannot rot.
#[cfg(all(doctest, feature = "controller"))]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
