//! `NodeSpec`: the immutable half of a node (name, mode, how to spawn it, what
//! to wait for before spawning, its slot and pool). It is a `const` value the
//! node refers to, so it stays in flash: a node's RAM is only its state.

use super::{Mode, SpawnFn};
use crate::resource::{Gate, Provided};

/// How long a spawn waits for each of its gates (resource slot, executor
/// slot, `ready` dep) unless the node sets `slot_timeout:`.
pub const DEFAULT_SLOT_TIMEOUT: embassy_time::Duration = embassy_time::Duration::from_millis(100);

/// How long a stop waits for the node's ack before returning an
/// [`AckMissed`](crate::FaultKind::AckMissed) fault, unless the node sets its own
/// window ([`NodeSpec::with_ack_timeout`](crate::NodeSpec::with_ack_timeout)).
pub const SHUTDOWN_ACK_TIMEOUT: embassy_time::Duration = embassy_time::Duration::from_secs(2);

/// A node's declaration, built with const builders and referenced by its
/// [`TaskNode`](crate::TaskNode):
///
/// ```
/// use embassy_supervisor::{Mode, NodeSpec, TaskNode};
/// static NET: TaskNode = TaskNode::new(&NodeSpec::new("NET", Mode::Terminate).at(0));
/// assert_eq!(NET.mode(), Mode::Terminate);
/// ```
pub struct NodeSpec {
    /// The node's declared name.
    pub name: &'static str,
    pub(crate) spawn: Option<SpawnFn>,
    pub(crate) gates: &'static [&'static dyn Gate],
    /// Slots this node fills, emptied when its instance ends.
    pub(crate) provides: &'static [&'static dyn Provided],
    pub(crate) slot_timeout_ms: u16,
    /// The ack window of a stop in milliseconds (0: the default).
    pub(crate) ack_timeout_ms: u32,
    pub(crate) mode: Mode,
    /// This node's slot in its graph (a hint; verified on use).
    pub(crate) index: u8,
    /// Index into the graph's `pools`, if a member. Not a sentinel value:
    /// a graph of 256 slots can hold 256 pools, indices 0..=255.
    #[cfg(feature = "pool")]
    pub(crate) pool: Option<u8>,
    /// Starts with the `disabled` latch set.
    pub(crate) disabled: bool,
    /// A generated resident shell runs the node (`task:`): no wait but the
    /// shell's own ever takes the node's waker slot, so the shell's pin has
    /// no holder to move (see `node/waiter.rs`). With [`HANDS_OVER`], its
    /// spawn glue does nothing before the hand-over (no resources, state or
    /// executor route), so the supervisor hands an activation to the parked
    /// shell itself. One byte for both: the spec packs to 40 bytes.
    pub(crate) shell: u8,
    /// `enabled_if:`: `start()` latches `disabled` when it returns `false`.
    #[cfg(feature = "enabled-if")]
    pub(crate) enabled_if: Option<fn() -> bool>,
    /// `beat_timeout:` in milliseconds (feature `liveness`); 0: not policed.
    #[cfg(feature = "liveness")]
    pub(crate) beat_timeout_ms: u32,
    /// `restart:` / `backoff:` / `restart_budget:` (feature `restart`).
    #[cfg(feature = "restart")]
    pub(crate) restart: Option<&'static crate::policy::RestartSpec>,
    /// The node's task runs its body through `TaskNode::with_faults`
    /// (feature `fault-inject`): injected faults are acted out.
    #[cfg(feature = "fault-inject")]
    pub(crate) fault_shell: bool,
    /// `ready_on_write` (features `dataflow` + `readiness`): the node's
    /// first write through it marks it ready (`dataflow.rs`).
    #[cfg(all(feature = "dataflow", feature = "readiness"))]
    pub(crate) ready_on_write: bool,
}

/// [`NodeSpec::shell`] bit: a generated resident shell runs the node.
const RESIDENT_SHELL: u8 = 1 << 0;
/// [`NodeSpec::shell`] bit: its glue only hands an activation over.
const HANDS_OVER: u8 = 1 << 1;

impl NodeSpec {
    /// A node with no spawn fn (a *parked* node the application spawns itself)
    /// and no resource gates.
    pub const fn new(name: &'static str, mode: Mode) -> Self {
        Self {
            name,
            spawn: None,
            gates: &[],
            provides: &[],
            slot_timeout_ms: 0,
            ack_timeout_ms: 0,
            mode,
            index: 0,
            #[cfg(feature = "pool")]
            pool: None,
            disabled: false,
            shell: 0,
            #[cfg(feature = "enabled-if")]
            enabled_if: None,
            #[cfg(feature = "liveness")]
            beat_timeout_ms: 0,
            #[cfg(feature = "restart")]
            restart: None,
            #[cfg(feature = "fault-inject")]
            fault_shell: false,
            #[cfg(all(feature = "dataflow", feature = "readiness"))]
            ready_on_write: false,
        }
    }

    /// How the supervisor spawns this node.
    pub const fn with_spawn(mut self, spawn: SpawnFn) -> Self {
        self.spawn = Some(spawn);
        self
    }

    /// Gates awaited (bounded by the slot timeout) before every spawn:
    /// resource slots, executor slots. An empty gate at the deadline fails the
    /// bring-up with a fault naming its position in this list
    /// ([`ResourceEmpty`](crate::FaultKind::ResourceEmpty),
    /// [`ExecutorUnpublished`](crate::FaultKind::ExecutorUnpublished)).
    pub const fn with_resources(mut self, gates: &'static [&'static dyn Gate]) -> Self {
        self.gates = gates;
        self
    }

    /// Slots this node fills (a provider: a driver handle, a session key).
    /// When an instance of it ends (its stop is acked, or its body
    /// returns) they are emptied, so a consumer gated on one waits for the
    /// next instance's fresh value instead of restarting on a stale one. A
    /// `Pause` node keeps them while parked (it resumes in place).
    pub const fn with_provides(mut self, slots: &'static [&'static dyn Provided]) -> Self {
        self.provides = slots;
        self
    }

    /// Per-gate pre-spawn wait in milliseconds (default
    /// [`DEFAULT_SLOT_TIMEOUT`]; `0` keeps the default).
    pub const fn with_slot_timeout(mut self, ms: u16) -> Self {
        self.slot_timeout_ms = ms;
        self
    }

    /// How long a stop of this node waits for its ack before it is an
    /// [`AckMissed`](crate::FaultKind::AckMissed) fault, in milliseconds (default
    /// [`SHUTDOWN_ACK_TIMEOUT`](crate::SHUTDOWN_ACK_TIMEOUT), 2 s; `0` keeps
    /// the default). For a node whose stop legitimately takes longer (a
    /// flash commit, a modem detach); every stop path uses it.
    pub const fn with_ack_timeout(mut self, ms: u32) -> Self {
        self.ack_timeout_ms = ms;
        self
    }

    /// `supervisor_graph!`: a generated resident shell runs this node
    /// (`task:`). Waits of other tasks on it then wait with the observers
    /// from the start, so the shell takes the node's task for life with
    /// nothing to move.
    #[doc(hidden)]
    pub const fn with_resident_shell(mut self) -> Self {
        self.shell |= RESIDENT_SHELL;
        self
    }

    /// `supervisor_graph!`: the node's resident shell takes its activations
    /// with nothing handed over before (a `task:` with no resources, state
    /// or executor): the supervisor wakes the parked shell itself instead of
    /// calling the spawn glue to do it.
    #[doc(hidden)]
    pub const fn with_direct_hand_over(mut self) -> Self {
        self.shell |= RESIDENT_SHELL | HANDS_OVER;
        self
    }

    /// A generated resident shell runs this node.
    pub(crate) const fn has_resident_shell(&self) -> bool {
        self.shell & RESIDENT_SHELL != 0
    }

    /// The supervisor hands an activation to this node's parked shell
    /// itself (see [`with_direct_hand_over`](Self::with_direct_hand_over)).
    pub(crate) const fn hands_over_directly(&self) -> bool {
        self.shell & HANDS_OVER != 0
    }

    /// The node's task awaits its body through
    /// [`TaskNode::with_faults`](crate::TaskNode::with_faults), so
    /// [`TaskNode::inject`](crate::TaskNode::inject) can reach it (feature
    /// `fault-inject`). Generated `task:` shells are marked; mark a
    /// hand-written task that opts in.
    #[cfg(feature = "fault-inject")]
    pub const fn with_fault_shell(mut self) -> Self {
        self.fault_shell = true;
        self
    }

    /// Declared `disabled`: not started at boot; a control `Activate` starts it.
    pub const fn disabled(mut self) -> Self {
        self.disabled = true;
        self
    }

    /// Settings-gated bring-up (feature `enabled-if`): each `start()` asks
    /// `enabled` for this node while it is down, and `false` latches
    /// `disabled` as the `disabled` marker would. `true` clears nothing, so a
    /// `deactivate` survives `start()`; `activate` and `start_node` start the
    /// node anyway.
    #[cfg(feature = "enabled-if")]
    pub const fn with_enabled_if(mut self, enabled: fn() -> bool) -> Self {
        self.enabled_if = Some(enabled);
        self
    }

    /// Police this node's heartbeat (feature `liveness`): while it runs, it
    /// must [`beat`](crate::TaskNode::beat) at least every `ms` milliseconds
    /// or it reads as stale to [`Graph::all_fresh`](crate::Graph::all_fresh),
    /// [`Graph::stale_nodes`](crate::Graph::stale_nodes) and
    /// [`Graph::wait_health`](crate::Graph::wait_health). `0` polices nothing
    /// (the default). Heartbeat ages are 32-bit tick counts: a timeout is
    /// capped at `u32::MAX / 2` ticks (about 35 minutes at a 1 MHz tick).
    #[cfg(feature = "liveness")]
    pub const fn with_beat_timeout(mut self, ms: u32) -> Self {
        self.beat_timeout_ms = ms;
        self
    }

    /// The heartbeat budget set by [`with_beat_timeout`](Self::with_beat_timeout),
    /// if the node is policed.
    #[cfg(feature = "liveness")]
    pub const fn beat_timeout(&self) -> Option<embassy_time::Duration> {
        match self.beat_timeout_ms {
            0 => None,
            ms => Some(embassy_time::Duration::from_millis(ms as u64)),
        }
    }

    /// Restart this node automatically, with a backoff and a budget (feature
    /// `restart`): see [`RestartSpec`](crate::RestartSpec). The graph must
    /// list the node's slot too ([`Graph::with_restarts`](crate::Graph::with_restarts)),
    /// which `supervisor_graph!` does.
    #[cfg(feature = "restart")]
    pub const fn with_restart(mut self, restart: &'static crate::policy::RestartSpec) -> Self {
        self.restart = Some(restart);
        self
    }

    /// The node's restart configuration, if it has one.
    #[cfg(feature = "restart")]
    pub const fn restart_spec(&self) -> Option<&'static crate::policy::RestartSpec> {
        self.restart
    }

    /// The node's slot index in its graph. The macro sets it; a hand-built
    /// graph should too (a wrong or missing index costs a linear lookup, never
    /// a wrong answer).
    pub const fn at(mut self, index: u8) -> Self {
        self.index = index;
        self
    }

    /// Marks the node as member of `graph.pools[pool]`.
    #[cfg(feature = "pool")]
    pub const fn in_pool(mut self, pool: u8) -> Self {
        self.pool = Some(pool);
        self
    }

    /// The node's lifecycle mode.
    pub const fn mode(&self) -> Mode {
        self.mode
    }

    /// True if the supervisor can spawn this node (it has a spawn fn); false
    /// for a parked node the application spawns.
    pub const fn has_spawn(&self) -> bool {
        self.spawn.is_some()
    }

    pub(crate) fn spawn_fn(&self) -> Option<SpawnFn> {
        self.spawn
    }

    pub(crate) fn gates(&self) -> &'static [&'static dyn Gate] {
        self.gates
    }

    /// The ack window of a stop of this node.
    pub fn ack_timeout(&self) -> embassy_time::Duration {
        match self.ack_timeout_ms {
            0 => SHUTDOWN_ACK_TIMEOUT,
            ms => embassy_time::Duration::from_millis(ms as u64),
        }
    }

    /// [`ack_timeout`](Self::ack_timeout) in milliseconds: a stop wave
    /// converts it to its own units in one step (`wave_clock`).
    pub(crate) const fn ack_window_ms(&self) -> u32 {
        match self.ack_timeout_ms {
            0 => SHUTDOWN_ACK_TIMEOUT.as_millis() as u32,
            ms => ms,
        }
    }

    /// The pre-spawn wait per gate.
    pub fn slot_timeout(&self) -> embassy_time::Duration {
        match self.slot_timeout_ms {
            0 => DEFAULT_SLOT_TIMEOUT,
            ms => embassy_time::Duration::from_millis(ms as u64),
        }
    }
}

impl core::fmt::Debug for NodeSpec {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NodeSpec")
            .field("name", &self.name)
            .field("mode", &self.mode)
            .field("gates", &self.gates.len())
            .finish()
    }
}
