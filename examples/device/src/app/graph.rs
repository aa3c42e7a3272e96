//! The supervised graph: every long-lived task of the device, who depends on
//! whom, and where each one runs.
//!
//! ```text
//! ETH ──► NET (ready: link up + address) ──► HTTP[0..6]  elastic pool (GrowOnShed)
//!   └───► ADMIN  (one listener that stays up while NET is down)
//! SENSOR (Pause, keeps the sensor peripheral) ──► REPORT ◄── NET ready
//! SENSOR ──► CALIBRATE (OnDemand, controller lane "calibrate")
//! NET ready ──► UPDATE (OnDemand, controller lane "update")
//! WATCHDOG (interrupt-priority executor tier): liveness and stall checks
//! ```

use embassy_supervisor::{Supervisor, supervisor_graph};
use embassy_time::Duration;

use super::jobs::Job;

/// Idle surplus a pool keeps before it shrinks by one worker.
pub const POOL_COOLDOWN: Duration = Duration::from_secs(3);

supervisor_graph! {
    executor HIGH;
    node ETH = Terminate, deps: [], task: super::net::eth_worker,
        resources: [RUNNER: crate::board::ThreadMode<embassy_net::Runner<'static, crate::board::NetDriver>>];
    node NET = Terminate, deps: [ETH], task: super::net::net_worker;
    node ADMIN = Terminate, deps: [ETH], task: super::http::admin_worker;
    node SENSOR = Pause, deps: [], task: super::sensor::sensor_worker,
        resources: [SENSOR_HW: crate::board::Sensor];
    node REPORT = Terminate, deps: [SENSOR, NET ready], task: super::sensor::report_worker;
    node WATCHDOG = Terminate, deps: [], executor: HIGH, task: super::watchdog::watchdog_worker;
    node CALIBRATE = OnDemand, deps: [SENSOR], task: super::jobs::calibrate_worker,
        resources: [CAL_IN: consume Job];
    node UPDATE = OnDemand, deps: [NET ready], task: super::jobs::update_worker,
        resources: [UPD_IN: consume Job];
    pool HTTP = [OnDemand, OnDemand, OnDemand, OnDemand, OnDemand, OnDemand],
        deps: [NET ready], task: super::http::http_worker,
        policy: super::scaling::GrowOnShed = super::scaling::GrowOnShed::new(POOL_COOLDOWN), min: 2, max: 6;
}

/// Graph slots, pool members included.
pub const N: usize = 14;

/// The supervisor, with the long-job controller attached.
pub static SUP: Supervisor<N> = Supervisor::new(&GRAPH).with_controller(&super::jobs::CTRL);
