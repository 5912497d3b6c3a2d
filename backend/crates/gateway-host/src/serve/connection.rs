//! One client connection, from accept to close: hyper's HTTP/1.1 and HTTP/2 server with its
//! timers, the body-read deadline of tower-http, and the idle deadline of [`Activity`].
//!
//! Deadlines of a connection:
//! - its first request must start within the header-read timeout (this also covers a socket
//!   that sends nothing, whose protocol would otherwise be waited for forever);
//! - HTTP/1.1 request heads are bounded by hyper's own header-read timer, which hyper starts
//!   as soon as the connection waits for a request, so an idle HTTP/1.1 keep-alive connection
//!   is closed after the shorter of the header-read and keep-alive idle timeouts;
//! - a body that stays silent for the body-read timeout fails the read;
//! - a connection with no request in flight for the keep-alive idle timeout is shut down
//!   gracefully (HTTP/2: GOAWAY) and cut [`IDLE_CLOSE_GRACE`] later if it is still open and idle.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;
use tower_http::timeout::TimeoutBody;

use super::ConnectionLimits;
use super::activity::{Activity, TrackedBody};
use super::client_io::{ClientIo, client_gone};
use super::protocol::{self, Protocol};

/// How long a connection closed for idleness gets to finish the close (HTTP/2 GOAWAY and its
/// ping) before the socket is dropped.
pub const IDLE_CLOSE_GRACE: Duration = Duration::from_secs(1);
/// HTTP/2 keep-alive pings: how often, and how long the peer has to answer before the
/// connection is closed as dead.
pub const HTTP2_PING_INTERVAL: Duration = Duration::from_secs(20);
pub const HTTP2_PING_TIMEOUT: Duration = Duration::from_secs(20);
/// Cap of hyper's HTTP/1.1 read and write buffers (and so of a request head). Client requests
/// are read whole before anything else happens and streamed answers are written event by
/// event: a moderate cap keeps thousands of open streams cheap.
const HTTP1_MAX_BUF: usize = 64 * 1024;

/// The protocol settings every connection shares; `keep_alive: false` for connections that
/// are answered once and closed.
pub fn builder(limits: &ConnectionLimits, keep_alive: bool) -> Builder<TokioExecutor> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(keep_alive)
        .max_buf_size(HTTP1_MAX_BUF);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(HTTP2_PING_INTERVAL)
        .keep_alive_timeout(HTTP2_PING_TIMEOUT);
    builder
}

/// The protocol settings of served connections: HTTP/1.1 and HTTP/2 as detected by
/// [`protocol::detect`], and hyper-util's own detection for a connection whose first bytes do
/// not decide it yet.
pub struct Protocols {
    http1: http1::Builder,
    http2: http2::Builder<TokioExecutor>,
    auto: Builder<TokioExecutor>,
}

impl Protocols {
    pub fn new(limits: &ConnectionLimits) -> Self {
        let mut http1 = http1::Builder::new();
        // `half_close`: hyper does not read while it answers; `client_io::client_gone` watches
        // for a client that hangs up instead (decision 0302).
        http1
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout)
            .keep_alive(true)
            .half_close(true)
            .max_buf_size(HTTP1_MAX_BUF);
        let mut http2 = http2::Builder::new(TokioExecutor::new());
        http2.timer(TokioTimer::new()).keep_alive_interval(HTTP2_PING_INTERVAL).keep_alive_timeout(HTTP2_PING_TIMEOUT);
        Self { http1, http2, auto: builder(limits, true) }
    }
}

/// Everything one connection task needs.
pub struct Accepted {
    pub stream: TcpStream,
    pub remote: SocketAddr,
    pub permit: OwnedSemaphorePermit,
}

/// Serves a connection within the limits until it ends, idles out, or the server drains (then
/// it is shut down gracefully; the server's drain deadline cuts it if need be).
pub async fn serve(
    accepted: Accepted,
    protocols: Arc<Protocols>,
    router: Router,
    limits: Arc<ConnectionLimits>,
    shutdown: CancellationToken,
) {
    let Accepted { stream, remote, permit: _permit } = accepted;
    let activity = Activity::new();
    let idle = activity.idle_too_long(limits.header_read_timeout, limits.keep_alive_idle_timeout);
    tokio::pin!(idle);
    let detected = tokio::select! {
        detected = protocol::detect(&stream) => detected,
        // Nothing arrived within the header-read timeout, or the server drains first.
        () = &mut idle => return,
        () = shutdown.cancelled() => return,
    };
    let service = service(router, remote, limits.body_read_timeout, activity.clone());
    let served = Served { idle, activity, remote, shutdown };
    match detected {
        Protocol::Http1 => {
            let io = ClientIo::new(stream);
            let conn = protocols.http1.serve_connection(TokioIo::new(io.clone()), service).with_upgrades();
            tokio::pin!(conn);
            let activity = served.activity.clone();
            served.drive(conn, |conn| conn.graceful_shutdown(), client_gone(&io, &activity)).await;
        }
        Protocol::Http2 => {
            let conn = protocols.http2.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(conn);
            served.drive(conn, |conn| conn.graceful_shutdown(), std::future::pending()).await;
        }
        Protocol::Undecided => {
            let conn = protocols.auto.serve_connection_with_upgrades(TokioIo::new(stream), service);
            tokio::pin!(conn);
            served.drive(conn, |conn| conn.graceful_shutdown(), std::future::pending()).await;
        }
    }
}

/// The deadlines of a connection whose protocol is known.
struct Served<'a, I> {
    idle: Pin<&'a mut I>,
    activity: Arc<Activity>,
    remote: SocketAddr,
    shutdown: CancellationToken,
}

impl<I: Future<Output = ()>> Served<'_, I> {
    /// Serves `conn` until it ends, is cut for idleness, or `client_gone` resolves (the
    /// connection is then dropped with whatever it was answering).
    async fn drive<C, E>(
        mut self,
        mut conn: Pin<&mut C>,
        graceful_shutdown: impl Fn(Pin<&mut C>),
        client_gone: impl Future<Output = ()>,
    ) where
        C: Future<Output = Result<(), E>>,
        E: std::fmt::Display,
    {
        let remote = self.remote;
        let mut draining = false;
        let mut idled_out = false;
        let mut cut_at: Option<Instant> = None;
        tokio::pin!(client_gone);
        loop {
            tokio::select! {
                result = conn.as_mut() => {
                    if let Err(err) = result {
                        tracing::debug!(error = %err, %remote, "connection ended with an error");
                    }
                    return;
                }
                () = client_gone.as_mut() => {
                    tracing::debug!(%remote, "the client closed the connection mid-request");
                    return;
                }
                () = self.shutdown.cancelled(), if !draining => {
                    draining = true;
                    graceful_shutdown(conn.as_mut());
                }
                () = self.idle.as_mut(), if !idled_out => {
                    idled_out = true;
                    cut_at = Some(Instant::now() + IDLE_CLOSE_GRACE);
                    graceful_shutdown(conn.as_mut());
                }
                () = sleep_until_some(cut_at) => {
                    if self.activity.is_idle() {
                        tracing::debug!(%remote, "idle connection cut");
                        return;
                    }
                    // A request slipped in before the close was seen: let it finish; the
                    // connection closes after it.
                    cut_at = None;
                }
            }
        }
    }
}

/// Answers every request of a connection beyond the cap with `overloaded`, then closes it;
/// the whole exchange is bounded by the header-read timeout.
pub async fn refuse(
    accepted: Accepted,
    builder: Arc<Builder<TokioExecutor>>,
    overloaded: Router,
    limits: Arc<ConnectionLimits>,
    shutdown: CancellationToken,
) {
    let Accepted { stream, remote, permit: _permit } = accepted;
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(remote));
        overloaded.clone().oneshot(request)
    });
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        result = tokio::time::timeout(limits.header_read_timeout, conn) => {
            if let Ok(Err(err)) = result {
                tracing::debug!(error = %err, %remote, "refused connection ended with an error");
            }
        }
        () = shutdown.cancelled() => {}
    }
}

async fn sleep_until_some(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The per-connection service: the router with the peer address attached, the body-read
/// deadline on the request body, and the request counted until its response body is done.
fn service(
    router: Router,
    remote: SocketAddr,
    body_read_timeout: Duration,
    activity: Arc<Activity>,
) -> impl hyper::service::Service<
    hyper::Request<Incoming>,
    Response = hyper::Response<TrackedBody>,
    Error = Infallible,
    Future = impl Future<Output = Result<hyper::Response<TrackedBody>, Infallible>> + Send,
> + Clone {
    hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let in_flight = activity.begin();
        let mut request = request.map(|body| TimeoutBody::new(body_read_timeout, body));
        request.extensions_mut().insert(ConnectInfo(remote));
        let response = router.clone().oneshot(request);
        async move {
            let response = response.await?;
            Ok(response.map(|body| TrackedBody::new(body, in_flight)))
        }
    })
}
