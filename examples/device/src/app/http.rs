//! The HTTP side: pool workers and ADMIN serve the control plane (one
//! connection at a time each, through picoserve); a shedder answers 503 when
//! every listener is busy.
//!
//! Bounds, so no client can hold a worker forever: picoserve's read/write
//! timeouts (a silent or slow client is dropped), a TCP idle timeout, and a
//! stop that lets the current request finish for at most 500 ms.

use embassy_futures::select::{Either, select};
use embassy_net::tcp::TcpSocket;
use embassy_supervisor::TaskNode;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Timer, with_timeout};
use picoserve::{Config, Router, Server, Timeouts};
use portable_atomic::{AtomicU8, AtomicU32, Ordering};

use super::api::Api;
use super::graph::HTTP_POOL;

/// The device's HTTP port (forwarded to the host's loopback by QEMU).
pub const PORT: u16 = 80;

/// Per-connection limits: a client that sends nothing for 2 s, or takes
/// longer than 3 s to send its request, or 3 s to take the response, is cut.
static CONFIG: Config = Config::new(Timeouts {
    start_read_request: Duration::from_secs(2),
    persistent_start_read_request: Duration::from_secs(1),
    read_request: Duration::from_secs(3),
    write: Duration::from_secs(3),
})
.close_connection_after_response();

/// How long a stopped worker lets its in-flight request run on.
const STOP_GRACE: Duration = Duration::from_millis(500);
/// How long a wedged worker ignores its stop (longer than the supervisor's
/// 2 s ack deadline, so the stop comes back as an `AckMissed` fault, which
/// the API reports as `ShutdownTimeout`).
const WEDGE_HOLD: Duration = Duration::from_secs(4);

/// Sockets currently listening on PORT (workers and ADMIN).
static LISTENING: AtomicU8 = AtomicU8::new(0);
static LISTENING_CHANGED: Signal<CriticalSectionRawMutex, ()> = Signal::new();
/// Connections served, and answered 503 by the shedder.
pub static SERVED: AtomicU32 = AtomicU32::new(0);
pub static SHED: AtomicU32 = AtomicU32::new(0);
/// Bit `i`: pool member `i` will ignore its next stop (test hook).
static WEDGED: AtomicU32 = AtomicU32::new(0);

/// Mark pool member `i` to ignore its next stop.
pub fn wedge(i: usize) {
    WEDGED.or(1 << i, Ordering::AcqRel);
}

fn member(node: &TaskNode) -> Option<usize> {
    HTTP_POOL.member_index(node)
}

fn is_wedged(node: &TaskNode) -> bool {
    member(node).is_some_and(|i| WEDGED.load(Ordering::Acquire) & (1 << i) != 0)
}

/// The test hook: a wedged worker sits on its stop past the supervisor's
/// ack deadline, then lets go (and is no longer wedged).
async fn hold_if_wedged(node: &'static TaskNode) {
    if is_wedged(node) {
        Timer::after(WEDGE_HOLD).await;
        if let Some(i) = member(node) {
            WEDGED.and(!(1 << i), Ordering::AcqRel);
        }
    }
}

/// Counts a socket as listening for as long as it lives.
struct Listening;

impl Listening {
    fn new() -> Self {
        LISTENING.add(1, Ordering::AcqRel);
        LISTENING_CHANGED.signal(());
        Self
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        LISTENING.sub(1, Ordering::AcqRel);
        LISTENING_CHANGED.signal(());
    }
}

/// A pool worker.
pub async fn http_worker(node: &'static TaskNode) {
    serve(node).await
}

/// ADMIN: the same server on one socket that depends only on ETH, so the
/// control plane stays reachable while NET and the pool are deactivated.
pub async fn admin_worker(node: &'static TaskNode) {
    serve(node).await
}

async fn beat_forever(node: &'static TaskNode) -> ! {
    loop {
        node.beat();
        Timer::after_secs(1).await;
    }
}

/// Accept and serve connections, one at a time, until stopped.
async fn serve(node: &'static TaskNode) {
    let stack = super::net::stack().await;
    let mut rx = [0u8; 1024];
    let mut tx = [0u8; 4096];
    let mut http = [0u8; 2048];
    loop {
        let mut socket = TcpSocket::new(stack, &mut rx, &mut tx);
        socket.set_timeout(Some(Duration::from_secs(10)));
        let listening = Listening::new();
        // Idle: listen (beating, so liveness sees an idle worker as alive).
        let accepted = node
            .run_cancellable(select(socket.accept(PORT), beat_forever(node)))
            .await;
        drop(listening);
        match accepted {
            Err(_) => {
                // Stopped while idle. Close the listener first: a socket left
                // listening would take a connection nobody serves (a hang
                // for that client) while a wedged worker holds its stop.
                socket.abort();
                drop(socket);
                hold_if_wedged(node).await;
                return; // the shell acks
            }
            Ok(Either::First(Ok(()))) => {}
            Ok(_) => {
                // Accept error (the stack lost its address): back off.
                Timer::after_millis(100).await;
                continue;
            }
        }
        node.mark_busy();
        SERVED.add(1, Ordering::Relaxed);
        let router = Router::from_service(Api { worker: node });
        let stop = async {
            node.wait_shutdown().await;
            if is_wedged(node) {
                core::future::pending::<()>().await;
            }
        };
        let _ = Server::new(&router, &CONFIG, &mut http)
            .with_graceful_shutdown(stop, STOP_GRACE)
            .serve(socket)
            .await;
        node.mark_idle();
        node.beat();
        if node.shutdown_requested() {
            hold_if_wedged(node).await;
            return;
        }
    }
}

const BUSY: &str = "{\"error\":\"busy\",\"detail\":\"every worker is serving; retry\"}";

/// The shedder: while no worker listens, accept and answer 503 at once, so
/// a client beyond the pool's capacity gets an answer instead of a hang.
#[embassy_executor::task]
pub async fn shedder() {
    let stack = super::net::stack().await;
    let mut rx = [0u8; 256];
    let mut tx = [0u8; 512];
    loop {
        while LISTENING.load(Ordering::Acquire) > 0 {
            LISTENING_CHANGED.wait().await;
        }
        let mut socket = TcpSocket::new(stack, &mut rx, &mut tx);
        socket.set_timeout(Some(Duration::from_secs(2)));
        // Stop listening as soon as a worker listens again: workers first.
        let accepted = select(socket.accept(PORT), async {
            while LISTENING.load(Ordering::Acquire) == 0 {
                LISTENING_CHANGED.wait().await;
            }
        })
        .await;
        if !matches!(accepted, Either::First(Ok(()))) {
            continue;
        }
        SHED.add(1, Ordering::Relaxed);
        let _ = with_timeout(Duration::from_millis(500), async {
            let mut head: heapless::String<160> = heapless::String::new();
            let _ = core::fmt::Write::write_fmt(
                &mut head,
                format_args!(
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n",
                    BUSY.len()
                ),
            );
            let _ = write_all(&mut socket, head.as_bytes()).await;
            let _ = write_all(&mut socket, BUSY.as_bytes()).await;
            let _ = socket.flush().await;
        })
        .await;
        socket.close();
        let _ = with_timeout(Duration::from_millis(200), socket.flush()).await;
        socket.abort();
        let _ = with_timeout(Duration::from_millis(100), socket.flush()).await;
    }
}

async fn write_all(
    socket: &mut TcpSocket<'_>,
    mut buf: &[u8],
) -> Result<(), embassy_net::tcp::Error> {
    while !buf.is_empty() {
        let n = socket.write(buf).await?;
        if n == 0 {
            return Err(embassy_net::tcp::Error::ConnectionReset);
        }
        buf = &buf[n..];
    }
    Ok(())
}
