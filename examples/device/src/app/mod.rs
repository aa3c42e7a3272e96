//! The application, shared by every board: the supervised graph, the HTTP
//! control plane and the dashboard.

pub mod api;
pub mod graph;
pub mod guard;
pub mod http;
pub mod jobs;
pub mod json;
pub mod log;
pub mod net;
pub mod scaling;
pub mod sensor;
pub mod status;
pub mod supervise;
pub mod watchdog;

use embassy_executor::Spawner;

/// The bearer token that state-changing requests must carry, fixed at build
/// time (`DEVICE_TOKEN=... cargo build`); run.sh prints it.
pub const TOKEN: &str = match option_env!("DEVICE_TOKEN") {
    Some(t) => t,
    None => "supervisor-demo-token",
};

/// Bring the application up: hand the board's peripherals to the graph,
/// start the interrupt tier and the supervisor. Call once from the board's
/// `main` task.
pub fn start(spawner: Spawner, driver: crate::board::NetDriver, sensor: crate::board::Sensor) {
    use embassy_net_driver::Driver as _;
    let mac = match driver.hardware_address() {
        embassy_net_driver::HardwareAddress::Ethernet(m) => m,
        _ => [0; 6],
    };
    let boot = (crate::board::seed(mac) >> 32) as u32;
    log::BOOT_ID.store(boot.max(1), portable_atomic::Ordering::Relaxed);
    let shed = net::init(spawner, driver);
    graph::SENSOR_HW.provide(sensor);
    if let Some(high) = crate::board::start_high_tier() {
        graph::HIGH.set(high);
    }
    if let Some(sub) = log::subscribe() {
        spawner.spawn(log::recorder(sub).expect("one recorder"));
    }
    // One task per shed socket (the pool has exactly as many); a socket
    // without a task would only never shed, so a failed spawn is skipped.
    for socket in shed {
        if let Ok(task) = http::shedder(socket) {
            spawner.spawn(task);
        }
    }
    spawner.spawn(guard::reverter().expect("one reverter"));
    spawner.spawn(supervise::supervisor(spawner).expect("one supervisor"));
}
