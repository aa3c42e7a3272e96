// The embassy-only floor: the same number of tasks, one per node, each parked
// on its own stop `Signal` after its first poll and raising its done `Signal`
// as its last act. No supervisor crate is linked.
use cortex_m_rt::entry;
use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
#[allow(unused_imports)]
use embassy_time::{Duration, Instant, Timer};

include!(concat!(env!("OUT_DIR"), "/workload.rs"));

type Sig = Signal<CriticalSectionRawMutex, ()>;
static STOP: [Sig; N] = [const { Signal::new() }; N];
static DONE: [Sig; N] = [const { Signal::new() }; N];
/// Tasks past their first poll and not yet stopped (the footprint run's check).
static UP: portable_atomic::AtomicU32 = portable_atomic::AtomicU32::new(0);

/// Body of task `t{i}` (the slot comes in as the task's argument, as a
/// side's worker gets its node): count itself up, park until stopped, then
/// count down and report the exit as its last act.
async fn direct(i: usize) {
    UP.add(1, portable_atomic::Ordering::AcqRel);
    STOP[i].wait().await;
    UP.sub(1, portable_atomic::Ordering::AcqRel);
    DONE[i].signal(());
}

/// Direct spawn of every task in slot order (each first poll follows).
fn spawn_all(s: Spawner) -> bool {
    SPAWN.iter().all(|spawn| spawn(s).is_ok())
}

/// Signal-and-join stop, dependents first: each task's exit is awaited before
/// the next stop, as a supervisor's ordered teardown does.
async fn stop_all() -> bool {
    for i in (0..N).rev() {
        STOP[i].signal(());
        DONE[i].wait().await;
    }
    true
}

fn up() -> u32 {
    UP.load(portable_atomic::Ordering::Acquire)
}
