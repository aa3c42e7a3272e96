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
//! Every outcome is a value: each verb's error is a [`NodeFault`] naming the
//! node and what went wrong ([`FaultKind`]: a missed shutdown ack, an empty
//! resource slot, an unpublished executor, a `ready` dependency that never
//! came up, a busy task pool, a refusal); a full control mailbox is a
//! [`ControlQueueFull`]. The library never panics on them.
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod log;

mod bind;
mod clock;
#[cfg(any(test, all(not(loom), not(target_has_atomic = "8"))))]
mod cs_atomic;
mod driver;
#[cfg(feature = "enabled-if")]
mod enabled_if;
mod error;
mod fault;
#[cfg(feature = "dataflow")]
mod flow;
mod graph;
#[cfg(feature = "liveness")]
mod health;
mod node;
mod notify;
#[cfg(feature = "control")]
mod out_of_line;
mod payload;
mod phase;
#[cfg(feature = "restart")]
mod policy;
mod render;
mod resource;
mod supervisor;
mod sync;
mod wait;
mod waker_cell;

#[cfg(feature = "control")]
mod control;
#[cfg(feature = "controller")]
mod controller_port;
#[cfg(feature = "pool")]
mod pool;
#[cfg(all(feature = "log", not(target_os = "none")))]
mod stderr_log;

/// Thin entry points into the lifecycle protocol for the loom models
/// (`tests/loom_*.rs`); only under `cfg(loom)`, never in a normal build.
#[cfg(loom)]
#[doc(hidden)]
pub mod loom_hooks;

#[cfg(feature = "breadcrumb")]
pub mod breadcrumb;
#[cfg(feature = "controller")]
pub mod controller;
#[cfg(feature = "dataflow")]
pub mod dataflow;
#[cfg(feature = "events")]
pub mod event;
#[cfg(feature = "trace")]
pub mod trace;
pub mod uses;

pub use error::{ControlQueueFull, ShutdownTimeout};
pub use fault::{FaultKind, NodeFault, Refusal, RunError};
pub use graph::Graph;
#[doc(hidden)]
pub use node::ShellTurn;
pub use node::{
    Aborted, DEFAULT_SLOT_TIMEOUT, Mode, NodeSpec, SHUTDOWN_ACK_TIMEOUT, SpawnFn, TaskNode,
};
pub use phase::Phase;
pub use render::Detail;
/// The specification's name for [`Gate`] (what a node awaits before each spawn).
pub use resource::Gate as ResourceGate;
pub use resource::{Gate, Lent, Provided, ResourceSlot, SpawnerSlot};
pub use supervisor::Supervisor;
#[allow(deprecated)]
pub use supervisor::{RestartError, RestartRefusal};

#[cfg(feature = "control")]
pub use control::{
    CONTROL_QUEUE_DEPTH, ControlCommand, ControlOp, request_control, try_request_control,
    wait_control, wait_control_where,
};
#[cfg(feature = "fault-inject")]
pub use node::{Crashed, Fault, NoFaultShell};
#[cfg(feature = "lifecycle-sink")]
pub use node::{LifecycleSink, set_lifecycle_sink};
#[cfg(feature = "restart")]
pub use policy::{
    DEFAULT_BACKOFF_MS, ExitStatus, RestartLog, RestartPolicy, RestartSpec, RestartState,
};
#[cfg(feature = "pool")]
pub use pool::{
    Decision, DeferredShrink, ElasticPool, Pool, PoolAction, PoolLoad, ScalingPolicy, request_scale,
};
#[cfg(all(feature = "log", not(target_os = "none")))]
pub use stderr_log::log_to_stderr;

/// Derive a task fn's dataflow from the accesses its body makes through its
/// node, for a graph's `derived` clause to check the node's lists against.
#[cfg(all(feature = "macros", feature = "dataflow"))]
pub use embassy_supervisor_macros::derive_dataflow;
#[cfg(feature = "macros")]
pub use embassy_supervisor_macros::{compose_graph, supervisor_fragment, supervisor_graph};

/// Re-exports the generated code relies on; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use embassy_executor;
    pub use embassy_time;

    /// A zeroed budget log of `R` stamps (the macro's `restart_budget:`).
    #[cfg(feature = "restart")]
    pub const fn restart_log<const R: usize>() -> crate::RestartLog<R> {
        [const { crate::sync::PublicAtomicU32::new(0) }; R]
    }

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

    /// `slot_timeout:` under a `#[cfg]` gate: the value, or 0 (the default)
    /// when the gate is off. A const fn keeps the spec a constant expression.
    pub const fn gated_ms(ms: u16, on: bool) -> u16 {
        if on { ms } else { 0 }
    }

    /// `beat_timeout:` under a `#[cfg]` gate: the value, or 0 (not policed).
    pub const fn gated_beat_ms(ms: u32, on: bool) -> u32 {
        if on { ms } else { 0 }
    }

    /// `ack_timeout:` under a `#[cfg]` gate: the value, or 0 (the 2 s default).
    pub const fn gated_ack_ms(ms: u32, on: bool) -> u32 {
        if on { ms } else { 0 }
    }

    /// `disabled` under a `#[cfg]` gate.
    pub const fn disabled_if(spec: crate::NodeSpec, on: bool) -> crate::NodeSpec {
        if on { spec.disabled() } else { spec }
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
