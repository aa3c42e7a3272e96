//! ETH runs the network stack; NET is ready once the link is up and DHCP
//! (QEMU's built-in server, or the Wi-Fi router) gave an address.

use embassy_executor::Spawner;
use embassy_net::{Config, Runner, Stack, StackResources};
use embassy_supervisor::TaskNode;
use embassy_sync::once_lock::OnceLock;
use static_cell::StaticCell;

use crate::board::{NetDriver, ThreadMode};

/// Sockets: 6 pool workers, ADMIN, 2 shedders, DHCP, and spare.
const SOCKETS: usize = 12;

static STACK: OnceLock<ThreadMode<Stack<'static>>> = OnceLock::new();
static RESOURCES: StaticCell<StackResources<SOCKETS>> = StaticCell::new();

/// Create the stack over the board's driver; its runner goes into ETH's
/// resource slot (lent to each ETH instance, so a respawn resumes it).
pub fn init(_spawner: Spawner, driver: NetDriver) {
    use embassy_net_driver::Driver as _;
    let mac = match driver.hardware_address() {
        embassy_net_driver::HardwareAddress::Ethernet(m) => m,
        _ => [0; 6],
    };
    let (stack, runner) = embassy_net::new(
        driver,
        Config::dhcpv4(Default::default()),
        RESOURCES.init(StackResources::new()),
        crate::board::seed(mac),
    );
    let _ = STACK.init(ThreadMode::new(stack));
    super::graph::RUNNER.provide(ThreadMode::new(runner));
}

/// The stack (set before the supervisor starts anything). Network tasks
/// run on the thread executor; from an interrupt tier this never resolves.
pub async fn stack() -> Stack<'static> {
    match STACK.get().await.get() {
        Some(s) => *s,
        None => core::future::pending().await,
    }
}

/// ETH: run the stack until stopped. The runner is lent, so a stop drops
/// only this poll of it and a respawn carries on with the same state.
pub async fn eth_worker(
    node: &'static TaskNode,
    runner: &mut ThreadMode<Runner<'static, NetDriver>>,
) {
    let Some(runner) = runner.get_mut() else {
        // Placed on an interrupt tier by mistake: refuse to touch the stack.
        return;
    };
    let _ = node.run_cancellable(runner.run()).await;
}

/// NET: ready once the link is up and an IPv4 address is configured; drops
/// readiness (and exits) when the address is lost, so the pool above goes
/// down with it and comes back when DHCP does.
pub async fn net_worker(node: &'static TaskNode) {
    let stack = stack().await;
    let _ = node
        .run_cancellable(async {
            stack.wait_link_up().await;
            stack.wait_config_up().await;
            super::log::mix_boot_id(embassy_time::Instant::now().as_ticks());
            node.set_ready();
            stack.wait_config_down().await;
        })
        .await;
    // Down (stopped, or the address went away): no longer ready.
    node.clear_ready();
}
