//! ETH runs the network stack; NET is ready once the link is up and DHCP
//! (QEMU's built-in server, or the Wi-Fi router) gave an address.

use embassy_executor::Spawner;
use embassy_net::tcp::TcpSocket;
use embassy_net::{Config, Runner, Stack, StackResources};
use embassy_supervisor::TaskNode;
use embassy_sync::once_lock::OnceLock;
use static_cell::StaticCell;

use super::http::{SHED_RX, SHED_SOCKETS, SHED_TX};
use crate::board::{NetDriver, ThreadMode};

/// Sockets below the shed block: DHCP, 6 pool workers, ADMIN, and two
/// spare (a worker drops its socket before it makes the next one).
const LOW_SOCKETS: usize = 10;
/// smoltcp panics when a socket is added to a full set: every socket the
/// application makes must be counted here.
const SOCKETS: usize = LOW_SOCKETS + SHED_SOCKETS;

/// The shedder's sockets and their buffers.
pub type ShedSockets = heapless::Vec<TcpSocket<'static>, SHED_SOCKETS>;
static SHED_BUFS: StaticCell<[([u8; SHED_RX], [u8; SHED_TX]); SHED_SOCKETS]> = StaticCell::new();

static STACK: OnceLock<ThreadMode<Stack<'static>>> = OnceLock::new();
static RESOURCES: StaticCell<StackResources<SOCKETS>> = StaticCell::new();

/// Create the stack over the board's driver; its runner goes into ETH's
/// resource slot (lent to each ETH instance, so a respawn resumes it).
/// Returns the shedder's sockets, made here so they sit in the top slots of
/// the socket set: smoltcp gives a SYN to the first listening socket in slot
/// order, and sockets fill the lowest free slot, so every worker's and
/// ADMIN's socket comes before them and a SYN is shed only when no worker
/// listens.
pub fn init(_spawner: Spawner, driver: NetDriver) -> ShedSockets {
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
    // DHCP took slot 0 (in `new`). Fill the other low slots with
    // placeholders, make the shed sockets above them, free the low slots.
    let mut low: heapless::Vec<TcpSocket<'static>, LOW_SOCKETS> = heapless::Vec::new();
    for _ in 1..LOW_SOCKETS {
        let _ = low.push(TcpSocket::new(stack, &mut [], &mut []));
    }
    let mut shed = ShedSockets::new();
    for (rx, tx) in SHED_BUFS
        .init([([0; SHED_RX], [0; SHED_TX]); SHED_SOCKETS])
        .iter_mut()
    {
        let _ = shed.push(TcpSocket::new(stack, rx, tx));
    }
    drop(low);
    shed
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
