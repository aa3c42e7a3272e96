//! [`Phase`]: the lifecycle phase a supervisor last drove a node into. The
//! breadcrumb stores it and the lifecycle sink receives it; one byte wide so
//! a node's breadcrumb fits a spare byte of its RAM.

/// A step of a node's lifecycle, as recorded on every driven transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
#[non_exhaustive]
pub enum Phase {
    /// Nothing recorded yet.
    Idle = 0,
    /// A bring-up waits for the node's gates (resource or executor slots,
    /// `ready` dependencies) before spawning it.
    Spawning = 1,
    /// An instance was spawned, or an app-spawned node was marked running.
    Started = 2,
    /// A parked `Pause` instance was resumed in place.
    Resumed = 3,
    /// A spawn was refused: a gate stayed closed, the task pool was full, or
    /// the node was disabled while it waited.
    SpawnFailed = 4,
    /// A stop (or pause) was requested; its ack is awaited.
    Stopping = 5,
    /// The instance acked a stop (`ack_dropped`).
    Stopped = 6,
    /// The instance's body returned (`mark_exited`).
    Exited = 7,
    /// A stop's ack did not come in time.
    StopTimedOut = 8,
}

impl Phase {
    const ALL: [Phase; 9] = [
        Phase::Idle,
        Phase::Spawning,
        Phase::Started,
        Phase::Resumed,
        Phase::SpawnFailed,
        Phase::Stopping,
        Phase::Stopped,
        Phase::Exited,
        Phase::StopTimedOut,
    ];

    /// The phase whose `as u8` is `code`, or `None` for a code no phase has.
    pub const fn from_u8(code: u8) -> Option<Phase> {
        if (code as usize) < Self::ALL.len() {
            Some(Self::ALL[code as usize])
        } else {
            None
        }
    }

    /// The phase's name, as written in this enum.
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Idle => "Idle",
            Phase::Spawning => "Spawning",
            Phase::Started => "Started",
            Phase::Resumed => "Resumed",
            Phase::SpawnFailed => "SpawnFailed",
            Phase::Stopping => "Stopping",
            Phase::Stopped => "Stopped",
            Phase::Exited => "Exited",
            Phase::StopTimedOut => "StopTimedOut",
        }
    }
}

impl core::fmt::Display for Phase {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}
