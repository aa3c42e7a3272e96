//! The DSL's `ack_timeout: MS` clause: it sets the node's ack window
//! (`NodeSpec::with_ack_timeout`), and a `#[cfg]`-gated one that is off
//! leaves the 2 s default. A stop that takes 3 s fits a 5 s window and
//! misses the default one; the mock clock moves in 1 s steps, so which
//! deadline passes first is never a race.
#![cfg(feature = "macros")]
mod common;

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_supervisor::{Supervisor, TaskNode, supervisor_graph};
use embassy_time::{Duration, Timer};

/// Takes 3 s (mock clock) to wind down after a stop, then acks.
async fn slow_stop(node: &'static TaskNode) {
    node.wait_shutdown().await;
    Timer::after(Duration::from_secs(3)).await;
    node.ack_dropped();
}

supervisor_graph! {
    node MODEM = Terminate, task: slow_stop, ack_timeout: 5000;
    node FLASH = Terminate, task: slow_stop, #[cfg(any())] ack_timeout: 5000;
}

static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

/// Four seconds of mock time, one at a time: past the 2 s default ack
/// window and the 3 s the worker takes, with every task run in between.
fn four_seconds() -> impl core::future::Future<Output = ()> {
    common::advance_in_steps(Duration::from_secs(4), Duration::from_secs(1))
}

#[test]
fn ack_timeout_clause_sets_the_window_and_its_cfg_gate_can_turn_it_off() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        assert_eq!(MODEM.ack_timeout(), Duration::from_secs(5));
        assert_eq!(
            FLASH.ack_timeout(),
            embassy_supervisor::SHUTDOWN_ACK_TIMEOUT
        );
        SUP.start(s).await.unwrap();
        common::settle().await;
        let (r, ()) = join(SUP.stop_node(&MODEM), four_seconds()).await;
        assert!(r.is_ok(), "MODEM's 3 s stop fits its 5 s window");
        let (r, ()) = join(SUP.stop_node(&FLASH), four_seconds()).await;
        assert_eq!(
            r.unwrap_err().node.name,
            "FLASH",
            "the gated-off clause left 2 s"
        );
        common::pass();
    }
    common::run(&[&MODEM, &FLASH], |s| s.spawn(drive(s).unwrap()));
}
