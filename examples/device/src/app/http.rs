//! The HTTP side: pool workers and ADMIN serve the control plane (one
//! connection at a time each, through picoserve); a shedder answers 503 when
//! every listener is busy.
//!
//! Bounds, so no client can hold a worker forever: picoserve's read/write
//! timeouts (a silent or slow client is dropped), a TCP idle timeout, and a
//! stop that lets the current request finish for at most 500 ms.

use core::cell::Cell;

use embassy_futures::select::{Either, select};
use embassy_net::tcp::TcpSocket;
use embassy_supervisor::TaskNode;
use embassy_time::{Duration, Instant, Timer, with_timeout};
use picoserve::{Config, Router, Server, Timeouts};
use portable_atomic::{AtomicU32, Ordering};

use super::api::Api;
use super::graph::{ADMIN, HTTP, HTTP_POOL};

/// The device's HTTP port (forwarded to the host's loopback by QEMU).
pub const PORT: u16 = 80;

/// Per-connection limits: a client that sends nothing for 1 s, or takes
/// longer than 1.5 s to send its request, or 3 s to take the response, is
/// cut. (A LAN client sends its request in one segment: these bound what a
/// dribbling client can hold.)
static CONFIG: Config = Config::new(Timeouts {
    start_read_request: Duration::from_secs(1),
    persistent_start_read_request: Duration::from_secs(1),
    read_request: Duration::from_millis(1500),
    write: Duration::from_secs(3),
})
.close_connection_after_response();

/// A connection that carries nothing for this long is dropped by TCP.
const TCP_IDLE: Duration = Duration::from_secs(15);
/// A connection still sending its request head this long after it was
/// accepted is cut when another client was turned away meanwhile.
const HEAD_GRACE: Duration = Duration::from_millis(400);
/// "Meanwhile": the shedder turned a client away within this window.
const SHED_RECENT: Duration = Duration::from_millis(1000);
/// Connections cut that way, and request heads too large for the buffer.
pub static EVICTED: AtomicU32 = AtomicU32::new(0);
pub static OVERSIZED: AtomicU32 = AtomicU32::new(0);
/// When the shedder last answered 503 (ms since boot, 0: never).
static SHED_AT_MS: AtomicU32 = AtomicU32::new(0);

/// How long a stopped worker lets its in-flight request run on.
const STOP_GRACE: Duration = Duration::from_millis(500);
/// How long a wedged worker ignores its stop (longer than the supervisor's
/// 2 s ack deadline, so the stop comes back as an `AckMissed` fault, which
/// the API reports as `ShutdownTimeout`).
const WEDGE_HOLD: Duration = Duration::from_secs(4);

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
        // Idle timeout: above the longest documented hold (a 10 s long-poll
        // or /api/slow), which sends nothing until it answers.
        socket.set_timeout(Some(TCP_IDLE));
        // Idle: listen (beating, so liveness sees an idle worker as alive).
        let accepted = node
            .run_cancellable(select(socket.accept(PORT), beat_forever(node)))
            .await;
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
        let head = HeadState::new();
        let _ = Server::new(&router, &CONFIG, &mut http)
            .with_graceful_shutdown(stop, STOP_GRACE)
            .serve(Guarded {
                sock: socket,
                st: &head,
            })
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
const NO_LISTENER: &str = "{\"error\":\"no_listener\",\"detail\":\"no worker is up to serve (the control plane was cut); a forced cut reverts by itself\"}";

/// Sockets the shedder keeps listening, always. smoltcp has no listen
/// backlog: a SYN goes to the first socket in its set that listens on the
/// port, and one that finds none is answered with a reset (which QEMU's user
/// network passes on to the client as a reset, not an answer). A shed
/// socket is busy until its client has read the answer and closed, so a
/// burst needs one per client beyond the listening workers: with these and
/// the 7 workers, 55 clients arriving at once all get an answer however
/// slowly they close. They are cheap (small buffers, no picoserve).
pub const SHED_SOCKETS: usize = 48;
/// Each shed socket's buffers: the answer (under 256 B) must fit `tx`; the
/// client's request is only drained.
pub const SHED_RX: usize = 128;
pub const SHED_TX: usize = 256;
/// How long a shed socket waits for its client to read the answer and
/// close (it drains the request meanwhile).
const SHED_LINGER: Duration = Duration::from_secs(1);
/// How long a refused client waits for its `503`. A client that loops on
/// requests as fast as it can is refused most when every worker is busy;
/// held here, it stops competing for the workers for that long, so a client
/// that asks at a human pace finds one free more often. A polite client
/// loses little: the answer tells it to retry after a second anyway.
const SHED_DELAY: Duration = Duration::from_millis(250);

/// The shedder, one task per socket (each wakes alone). The sockets sit in
/// the top slots of the stack's socket set (reserved by
/// [`super::net::init`]), after every worker's and ADMIN's, so a SYN
/// reaches a shed socket only when no worker listens. Each answers `503` at
/// once, so a client beyond the pool's capacity gets an answer instead of a
/// reset or a hang.
#[embassy_executor::task(pool_size = SHED_SOCKETS)]
pub async fn shedder(socket: TcpSocket<'static>) {
    shed_on(socket).await
}

/// One shed socket, reused for every client it turns away (it keeps its
/// slot, and so its place after the workers).
async fn shed_on(mut socket: TcpSocket<'static>) {
    loop {
        socket.set_timeout(Some(Duration::from_secs(2)));
        if socket.accept(PORT).await.is_err() {
            // Not closed yet, or no address: reset it and try again.
            socket.abort();
            let _ = with_timeout(Duration::from_millis(100), socket.flush()).await;
            Timer::after_millis(100).await;
            continue;
        }
        SHED.add(1, Ordering::Relaxed);
        SHED_AT_MS.store(
            (Instant::now().as_millis() as u32).max(1),
            Ordering::Relaxed,
        );
        // The pool's policy grows on a refusal (`scaling::GrowOnShed`):
        // have the driver ask it now.
        embassy_supervisor::request_scale();
        Timer::after(SHED_DELAY).await;
        // Busy, or no worker up at all? Say which.
        let serving = ADMIN.is_running() || HTTP.iter().any(|m| m.is_running());
        let body = if serving { BUSY } else { NO_LISTENER };
        let _ = with_timeout(Duration::from_millis(500), async {
            let mut head: heapless::String<160> = heapless::String::new();
            let _ = core::fmt::Write::write_fmt(
                &mut head,
                format_args!(
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n",
                    body.len()
                ),
            );
            let _ = write_all(&mut socket, head.as_bytes()).await;
            let _ = write_all(&mut socket, body.as_bytes()).await;
            let _ = socket.flush().await;
        })
        .await;
        // Close gracefully: send our FIN, drain the request, and wait for
        // the client's FIN. A reset right after the FIN (what this did
        // before) makes QEMU's user network drop the answer it has taken
        // but not yet passed to the client, who then sees an empty reply.
        socket.close();
        let _ = with_timeout(SHED_LINGER, async {
            let mut scratch = [0u8; 64];
            while let Ok(n) = socket.read(&mut scratch).await {
                if n == 0 {
                    break;
                }
            }
        })
        .await;
        // Back to Closed (a client that did not close in time is reset),
        // so the socket can listen again.
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

/// What the reader learnt about a connection's request head.
struct HeadState {
    accepted: Instant,
    /// The last bytes read, to spot the blank line ending the head.
    tail: Cell<u32>,
    newline: Cell<bool>,
    done: Cell<bool>,
    /// The head did not fit picoserve's buffer: 414 (in the request line)
    /// or 431 (in the headers).
    oversized: Cell<Option<u16>>,
}

impl HeadState {
    fn new() -> Self {
        Self {
            accepted: Instant::now(),
            tail: Cell::new(0),
            newline: Cell::new(false),
            done: Cell::new(false),
            oversized: Cell::new(None),
        }
    }

    fn saw(&self, bytes: &[u8]) {
        for &b in bytes {
            if self.done.get() {
                return;
            }
            let t = (self.tail.get() << 8) | b as u32;
            self.tail.set(t);
            if b == b'\n' {
                self.newline.set(true);
            }
            if t == 0x0d0a_0d0a || t & 0xffff == 0x0a0a {
                self.done.set(true);
            }
        }
    }
}

/// The TCP socket as picoserve sees it, with two additions: a request head
/// too large for the buffer is answered `414`/`431` with a JSON error (not
/// picoserve's plain-text 400), and a client still dribbling its head after
/// `HEAD_GRACE` is cut once another client was turned away for want of a
/// worker (so slow clients cannot hold every worker).
struct Guarded<'s, 'a> {
    sock: TcpSocket<'s>,
    st: &'a HeadState,
}

struct GuardedReader<'r, 'a> {
    inner: embassy_net::tcp::TcpReader<'r>,
    st: &'a HeadState,
}

impl picoserve::io::ErrorType for GuardedReader<'_, '_> {
    type Error = embassy_net::tcp::Error;
}

/// Resolves once this connection should give way: its head is late and a
/// client was shed recently.
async fn evict_when_late(st: &HeadState) {
    loop {
        Timer::after_millis(100).await;
        let now = Instant::now();
        let shed_at = SHED_AT_MS.load(Ordering::Relaxed);
        let late = now.duration_since(st.accepted) >= HEAD_GRACE;
        let shed_recent = shed_at != 0
            && (now.as_millis() as u32).wrapping_sub(shed_at) < SHED_RECENT.as_millis() as u32;
        if late && shed_recent {
            return;
        }
    }
}

impl picoserve::io::Read for GuardedReader<'_, '_> {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        if self.st.done.get() {
            return self.inner.read(buf).await;
        }
        if buf.is_empty() {
            // picoserve asks for more with its buffer full: the head is too
            // large. Fail the read; `abort` below answers.
            self.st
                .oversized
                .set(Some(if self.st.newline.get() { 431 } else { 414 }));
            return Err(embassy_net::tcp::Error::ConnectionReset);
        }
        match select(self.inner.read(buf), evict_when_late(self.st)).await {
            Either::First(r) => {
                let n = r?;
                self.st.saw(&buf[..n]);
                Ok(n)
            }
            Either::Second(()) => {
                EVICTED.add(1, Ordering::Relaxed);
                Err(embassy_net::tcp::Error::ConnectionReset)
            }
        }
    }
}

impl<'s, 'a> picoserve::io::Socket<picoserve::EmbassyRuntime> for Guarded<'s, 'a> {
    type Error = embassy_net::tcp::Error;
    type ReadHalf<'r>
        = GuardedReader<'r, 'a>
    where
        Self: 'r;
    type WriteHalf<'r>
        = embassy_net::tcp::TcpWriter<'r>
    where
        Self: 'r;

    fn split(&mut self) -> (Self::ReadHalf<'_>, Self::WriteHalf<'_>) {
        let (r, w) = self.sock.split();
        (
            GuardedReader {
                inner: r,
                st: self.st,
            },
            w,
        )
    }

    async fn abort<T: picoserve::Timer<picoserve::EmbassyRuntime>>(
        mut self,
        timeouts: &picoserve::Timeouts,
        timer: &T,
    ) -> Result<(), picoserve::Error<Self::Error>> {
        let Some(code) = self.st.oversized.get() else {
            return self.sock.abort(timeouts, timer).await;
        };
        OVERSIZED.add(1, Ordering::Relaxed);
        let (status, body) = if code == 414 {
            ("414 URI Too Long", TOO_LONG_URI)
        } else {
            ("431 Request Header Fields Too Large", TOO_LARGE_HEADERS)
        };
        let mut head: heapless::String<200> = heapless::String::new();
        let _ = core::fmt::Write::write_fmt(
            &mut head,
            format_args!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            ),
        );
        let _ = with_timeout(timeouts.write, async {
            let _ = write_all(&mut self.sock, head.as_bytes()).await;
            let _ = write_all(&mut self.sock, body.as_bytes()).await;
            let _ = self.sock.flush().await;
        })
        .await;
        // The client is still sending the rest of its head: close our side,
        // let the answer drain, then reset.
        self.sock.close();
        let _ = with_timeout(Duration::from_millis(300), self.sock.flush()).await;
        self.sock.abort(timeouts, timer).await
    }

    async fn shutdown<T: picoserve::Timer<picoserve::EmbassyRuntime>>(
        self,
        timeouts: &picoserve::Timeouts,
        timer: &T,
    ) -> Result<(), picoserve::Error<Self::Error>> {
        self.sock.shutdown(timeouts, timer).await
    }
}

const TOO_LONG_URI: &str =
    "{\"error\":\"uri_too_long\",\"detail\":\"request line and headers share a 2048-byte buffer\"}";
const TOO_LARGE_HEADERS: &str = "{\"error\":\"headers_too_large\",\"detail\":\"request line and headers share a 2048-byte buffer\"}";
