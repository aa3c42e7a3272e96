//! The code a supervisor whose type leaves the graph's features open
//! (`Supervisor<N>`, the spec's `Supervisor::new(&GRAPH)`) runs for what
//! its graph uses, picked once, in const evaluation, from the graph's own
//! [`uses`](crate::uses) bits and width (`Supervisor::over`).
//!
//! Why pointers: a type's `USES` bits are constants, so a typed
//! supervisor's tests of them drop the code a graph does not use. A test
//! of the graph's bits at run time (a load) skips that code but links it.
//! A `static`'s initializer is evaluated at compile time, so a pointer
//! stored there is the one reference to the code it names: the bring-up
//! code instantiated for exactly the graph's gate and `Pause` bits
//! (`bring_up_now_as::<U>`), and the stop wave only for a graph that is
//! not a chain. The rest of the instances are never referenced and never
//! linked.

use core::pin::Pin;
use core::task::{Poll, Waker};

use embassy_executor::Spawner;

use super::Supervisor;
use super::start_wave::StartRun;
use super::stop_wave::WaveCode;
use crate::fault::{FaultKind, NodeFault};
use crate::notify::Observer;
use crate::wait::Cond;
use crate::{Graph, TaskNode, uses};

/// A bring-up step's signature (`Supervisor::bring_up_now`).
type BringUp<const N: usize, const USES: u8> =
    fn(&Supervisor<N, USES>, &'static TaskNode, Spawner, u32) -> Option<Result<(), NodeFault>>;

/// A whole-graph fast pass's signature (`Supervisor::fast_pass`).
type FastPass<const N: usize, const USES: u8> =
    fn(&Supervisor<N, USES>, Spawner, u8, u32) -> Option<super::FastPassEnd>;

/// A bring-up wave's poll (`Supervisor::start_step_as`).
type StartStep<const N: usize, const USES: u8> =
    fn(&Supervisor<N, USES>, &mut StartRun<'_, N>, &Waker, Pin<&mut Observer>) -> Poll<()>;

/// A closed-gate lookup's signature (`Supervisor::closed_gate`).
type GateCheck<const N: usize, const USES: u8> =
    fn(&Supervisor<N, USES>, &'static TaskNode) -> Option<(Cond<'static>, FaultKind)>;

/// The code picked for one graph.
pub(super) struct Picked<const N: usize, const USES: u8> {
    /// `Supervisor::bring_up_now_as::<U>`, `U` the graph's bits (also a
    /// cascade's per-node step: through a pointer, the typed form's inline
    /// fast case would only be a second copy). Each pointer names an
    /// out-of-line function a typed supervisor calls directly, so the
    /// table of a type that names every bit links nothing more.
    pub(super) bring_up_now: BringUp<N, USES>,
    /// `Supervisor::fast_pass_as::<U>`: one call per verb, not per node.
    pub(super) fast_pass: Option<FastPass<N, USES>>,
    /// `Supervisor::start_step_as::<U>`: the bring-up wave, whose gate
    /// waits (a deadline per node, sleeping on changes) only a graph with
    /// gates links.
    pub(super) start_step: StartStep<N, USES>,
    /// `Supervisor::closed_gate_as::<U>`.
    pub(super) closed_gate: Option<GateCheck<N, USES>>,
    /// The graph has gates ([`uses::GATES`]).
    pub(super) gates: bool,
    /// The stop wave's code, for a graph that is not a chain and a type
    /// that names no one width bit (a typed supervisor names its own).
    pub(super) wave: Option<WaveCode<N>>,
}

/// The gate and `Pause` bits the bring-up code is instantiated for.
pub(super) const BRING_UP_BITS: u8 = uses::GATES | uses::PAUSE;

impl<const N: usize, const USES: u8> Picked<N, USES> {
    const fn of<const U: u8>(wide: bool) -> Self {
        Self {
            bring_up_now: Supervisor::bring_up_now_as::<U>,
            fast_pass: Some(Supervisor::fast_pass_as::<U>),
            start_step: Supervisor::start_step_as::<U>,
            closed_gate: Some(Supervisor::closed_gate_as::<U>),
            gates: U & uses::GATES != 0,
            wave: if wide { Some(WaveCode::CODE) } else { None },
        }
    }

    /// For a type whose `USES` has neither bit: it never calls through
    /// these pointers (its tests of the bits are constants), so they name
    /// only what it links anyway.
    const fn named(wide: bool) -> Self {
        Self {
            bring_up_now: Supervisor::bring_up_now_as::<0>,
            fast_pass: None,
            start_step: Supervisor::start_step_as::<0>,
            closed_gate: None,
            gates: false,
            wave: if wide { Some(WaveCode::CODE) } else { None },
        }
    }

    const NAMED: Self = Self::named(false);
    const NAMED_WIDE: Self = Self::named(true);
    const PLAIN: Self = Self::of::<0>(false);
    const GATES: Self = Self::of::<{ uses::GATES }>(false);
    const PAUSE: Self = Self::of::<{ uses::PAUSE }>(false);
    const BOTH: Self = Self::of::<BRING_UP_BITS>(false);
    const PLAIN_WIDE: Self = Self::of::<0>(true);
    const GATES_WIDE: Self = Self::of::<{ uses::GATES }>(true);
    const PAUSE_WIDE: Self = Self::of::<{ uses::PAUSE }>(true);
    const BOTH_WIDE: Self = Self::of::<BRING_UP_BITS>(true);

    /// The code for `graph` under the type's `USES`: the bring-up code for
    /// the bits both have, and the wave unless the type names its width or
    /// the graph is a chain.
    pub(super) const fn pick(graph: &Graph<N>) -> &'static Self {
        let bits = USES & graph.uses() & BRING_UP_BITS;
        let width = USES & (uses::WAVE | uses::CHAIN);
        let names_width = width == uses::WAVE || width == uses::CHAIN;
        let wide = !names_width && !graph.is_chain();
        match (bits, wide) {
            _ if USES & BRING_UP_BITS == 0 && !wide => &Self::NAMED,
            _ if USES & BRING_UP_BITS == 0 => &Self::NAMED_WIDE,
            (0, false) => &Self::PLAIN,
            (uses::GATES, false) => &Self::GATES,
            (uses::PAUSE, false) => &Self::PAUSE,
            (_, false) => &Self::BOTH,
            (0, true) => &Self::PLAIN_WIDE,
            (uses::GATES, true) => &Self::GATES_WIDE,
            (uses::PAUSE, true) => &Self::PAUSE_WIDE,
            (_, true) => &Self::BOTH_WIDE,
        }
    }
}
