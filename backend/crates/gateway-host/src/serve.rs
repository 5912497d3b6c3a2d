//! HTTP serve: connection limits and deadlines, and the graceful drain.
//!
//! Every accepted connection takes one of `max_connections` permits and is served under the
//! deadlines of [`connection`]. Beyond the cap a connection is answered by the `overloaded`
//! router (503) and closed; beyond [`ConnectionLimits::overflow_connections`] such answers at
//! once, it is closed unanswered. Connections already served are never touched by the cap.
//!
//! On shutdown the listener is closed at once (new connections are refused), idle keep-alive
//! connections are closed, in-flight requests run on until they finish or until the absolute
//! deadline fixed by the signal; whatever is still open then is cut.

mod activity;
mod client_io;
mod connection;
mod protocol;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::IntoResponse;
use hyper_util::rt::TokioExecutor;
use hyper_util::server::conn::auto::Builder;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

pub use connection::{HTTP2_PING_INTERVAL, HTTP2_PING_TIMEOUT, IDLE_CLOSE_GRACE};

use crate::Shutdown;
use crate::config::ServerConfig;

/// Connections beyond the cap answered with 503 at the same time; more are closed unanswered.
pub const OVERFLOW_CONNECTIONS: usize = 256;

/// The listen backlog asked for; the kernel caps it at `net.core.somaxconn` (4096 on current
/// Linux). tokio's `TcpListener::bind` asks for 1024: a burst of connections beyond what the
/// accept loop has taken overflows that queue, and the kernel drops their handshakes (an idle
/// client never learns, its connection exists only on its side).
pub const LISTEN_BACKLOG: u32 = 65_535;

/// Binds the server's listening socket with [`LISTEN_BACKLOG`] (and `SO_REUSEADDR`, as tokio's
/// own `bind` does).
pub fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// The limits and deadlines of client connections (from [`ServerConfig`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionLimits {
    pub header_read_timeout: Duration,
    pub body_read_timeout: Duration,
    pub keep_alive_idle_timeout: Duration,
    pub max_connections: usize,
    pub overflow_connections: usize,
}

impl ConnectionLimits {
    pub fn from_config(server: &ServerConfig) -> Self {
        Self {
            header_read_timeout: Duration::from_secs(server.header_read_timeout_seconds),
            body_read_timeout: Duration::from_secs(server.body_read_timeout_seconds),
            keep_alive_idle_timeout: Duration::from_secs(server.keep_alive_idle_timeout_seconds),
            max_connections: server.max_connections,
            overflow_connections: OVERFLOW_CONNECTIONS,
        }
    }
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self::from_config(&ServerConfig::default())
    }
}

/// How the drain ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServeOutcome {
    /// Every connection finished before the deadline.
    Drained,
    /// The deadline passed; this many connections were cut.
    ForceClosed { connections: usize },
}

/// The HTTP server: the application router, the answer for connections beyond the cap, and
/// the limits.
pub struct Server {
    router: Router,
    overloaded: Router,
    limits: ConnectionLimits,
}

impl Server {
    pub fn new(router: Router, limits: ConnectionLimits) -> Self {
        Self { router, overloaded: Router::new().fallback(plain_overloaded), limits }
    }

    /// The router that answers every request on a connection beyond the cap (default: a plain
    /// 503). `Connection: close` is added by the server.
    pub fn overloaded(mut self, router: Router) -> Self {
        self.overloaded = router;
        self
    }

    /// Serves on `listener` until `shutdown` is triggered, then drains.
    pub async fn serve(self, listener: TcpListener, shutdown: Shutdown) -> ServeOutcome {
        let mut admission = Admission::new(self, shutdown.token());
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                biased;
                () = shutdown.triggered() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, remote)) => {
                        admission.admit(stream, remote, &mut connections);
                        while connections.try_join_next().is_some() {}
                    }
                    Err(err) => {
                        // Out of file descriptors and similar: back off briefly instead of spinning.
                        tracing::warn!(error = %err, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
            }
        }
        drop(listener);
        let open = connections.len();
        tracing::info!(open_connections = open, "listener closed; draining");
        drain(connections, shutdown.deadline().unwrap_or_else(tokio::time::Instant::now)).await
    }
}

/// Where an accepted connection goes: served within the cap, answered 503 beyond it, or closed
/// unanswered beyond the overflow answers.
struct Admission {
    router: Router,
    overloaded: Router,
    limits: Arc<ConnectionLimits>,
    serving: Arc<connection::Protocols>,
    refusing: Arc<Builder<TokioExecutor>>,
    permits: Arc<Semaphore>,
    overflow: Arc<Semaphore>,
    shutdown: CancellationToken,
    at_cap: bool,
}

impl Admission {
    fn new(server: Server, shutdown: CancellationToken) -> Self {
        let limits = Arc::new(server.limits);
        Self {
            router: server.router,
            overloaded: server.overloaded,
            serving: Arc::new(connection::Protocols::new(&limits)),
            refusing: Arc::new(connection::builder(&limits, false)),
            permits: Arc::new(Semaphore::new(limits.max_connections)),
            overflow: Arc::new(Semaphore::new(limits.overflow_connections)),
            limits,
            shutdown,
            at_cap: false,
        }
    }

    fn admit(&mut self, stream: TcpStream, remote: SocketAddr, connections: &mut JoinSet<()>) {
        // Latency matters more than packet count for streamed events.
        if let Err(err) = stream.set_nodelay(true) {
            tracing::debug!(error = %err, "cannot set TCP_NODELAY");
        }
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            self.at_cap = false;
            let accepted = connection::Accepted { stream, remote, permit };
            let (router, limits) = (self.router.clone(), self.limits.clone());
            connections.spawn(connection::serve(accepted, self.serving.clone(), router, limits, self.shutdown.clone()));
            return;
        }
        if !self.at_cap {
            self.at_cap = true;
            tracing::warn!(
                max_connections = self.limits.max_connections,
                "connection limit reached; new connections are answered 503"
            );
        }
        if let Ok(permit) = self.overflow.clone().try_acquire_owned() {
            let accepted = connection::Accepted { stream, remote, permit };
            let (router, limits) = (self.overloaded.clone(), self.limits.clone());
            connections.spawn(connection::refuse(
                accepted,
                self.refusing.clone(),
                router,
                limits,
                self.shutdown.clone(),
            ));
        }
        // Otherwise the stream is dropped here: the socket closes unanswered.
    }
}

/// Waits for the connections (each shuts down gracefully on the signal) until `deadline`, then
/// cuts the rest.
async fn drain(mut connections: JoinSet<()>, deadline: tokio::time::Instant) -> ServeOutcome {
    let all_done = async { while connections.join_next().await.is_some() {} };
    let done_in_time = tokio::time::timeout_at(deadline, all_done).await.is_ok();
    if done_in_time {
        tracing::info!("drain complete");
        return ServeOutcome::Drained;
    }
    let cut = connections.len();
    connections.abort_all();
    while connections.join_next().await.is_some() {}
    tracing::warn!(connections = cut, "drain deadline passed; connections cut");
    ServeOutcome::ForceClosed { connections: cut }
}

async fn plain_overloaded() -> axum::response::Response {
    let mut response =
        (StatusCode::SERVICE_UNAVAILABLE, "the server is at its connection limit; try again shortly\n").into_response();
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}
