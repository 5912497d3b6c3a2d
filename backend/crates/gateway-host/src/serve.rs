//! HTTP serve with graceful drain.
//!
//! On shutdown the listener is closed at once (new connections are refused), idle keep-alive
//! connections are closed, in-flight requests run on until they finish or until the absolute
//! deadline fixed by the signal; whatever is still open then is cut.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tower::ServiceExt;

use crate::Shutdown;

/// How the drain ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServeOutcome {
    /// Every connection finished before the deadline.
    Drained,
    /// The deadline passed; this many connections were cut.
    ForceClosed { connections: usize },
}

/// Serves `router` on `listener` until `shutdown` is triggered, then drains.
pub async fn serve(listener: TcpListener, router: Router, shutdown: Shutdown) -> ServeOutcome {
    let mut builder = Builder::new(TokioExecutor::new());
    // Client requests are read whole before anything else happens and streamed answers are
    // written event by event: a moderate buffer cap keeps thousands of open streams cheap.
    builder.http1().max_buf_size(64 * 1024);
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();

    loop {
        tokio::select! {
            biased;
            () = shutdown.triggered() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, remote)) => {
                    // Latency matters more than packet count for streamed events.
                    if let Err(err) = stream.set_nodelay(true) {
                        tracing::debug!(error = %err, "cannot set TCP_NODELAY");
                    }
                    let service = connection_service(router.clone(), remote);
                    let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service).into_owned();
                    let watched = graceful.watch(conn);
                    connections.spawn(async move {
                        if let Err(err) = watched.await {
                            tracing::debug!(error = %err, %remote, "connection ended with an error");
                        }
                    });
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

    let deadline = shutdown.deadline().unwrap_or_else(tokio::time::Instant::now);
    tokio::select! {
        () = graceful.shutdown() => {
            while connections.join_next().await.is_some() {}
            tracing::info!("drain complete");
            ServeOutcome::Drained
        }
        () = tokio::time::sleep_until(deadline) => {
            let cut = connections.len();
            connections.abort_all();
            while connections.join_next().await.is_some() {}
            tracing::warn!(connections = cut, "drain deadline passed; connections cut");
            ServeOutcome::ForceClosed { connections: cut }
        }
    }
}

/// The per-connection service: the router with the peer address attached to each request.
fn connection_service(
    router: Router,
    remote: SocketAddr,
) -> impl hyper::service::Service<
    hyper::Request<Incoming>,
    Response = axum::response::Response,
    Error = Infallible,
    Future = impl Future<Output = Result<axum::response::Response, Infallible>> + Send,
> + Clone {
    hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(remote));
        router.clone().oneshot(request)
    })
}
