//! The accept loops: one task per connection, HTTP/1.1 and HTTP/2 with upgrades (WebSocket), a
//! [`ConnControl`] per connection, and shutdown that stops accepting and aborts connections.
//! The plain listener speaks HTTP/1.1 and cleartext HTTP/2 (prior knowledge); the TLS listener
//! negotiates `h2` or `http/1.1` by ALPN and records what each connection agreed
//! ([`ConnectionLog`]).

use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::conn::{ConnControl, ControlledStream};

/// What one accepted connection negotiated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionInfo {
    /// Whether it came in on the TLS listener.
    pub tls: bool,
    /// The ALPN protocol agreed on (`h2`, `http/1.1`), `None` without ALPN or TLS.
    pub alpn: Option<String>,
}

/// Connections accepted so far, oldest first (bounded: the newest 1,000).
#[derive(Default)]
pub struct ConnectionLog(Mutex<std::collections::VecDeque<ConnectionInfo>>);

impl ConnectionLog {
    fn push(&self, info: ConnectionInfo) {
        let mut log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if log.len() >= 1_000 {
            log.pop_front();
        }
        log.push_back(info);
    }

    pub fn list(&self) -> Vec<ConnectionInfo> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).iter().cloned().collect()
    }
}

/// Serves `router` on `listener` (and on `tls` with its acceptor) until `shutdown` is cancelled.
pub async fn serve(
    listener: TcpListener,
    tls: Option<(TcpListener, TlsAcceptor)>,
    router: Router,
    shutdown: CancellationToken,
    log: Arc<ConnectionLog>,
) {
    let mut loops = JoinSet::new();
    if let Some((listener, acceptor)) = tls {
        loops.spawn(accept_loop(listener, Some(acceptor), router.clone(), shutdown.clone(), log.clone()));
    }
    loops.spawn(accept_loop(listener, None, router, shutdown, log));
    while loops.join_next().await.is_some() {}
}

async fn accept_loop(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    router: Router,
    shutdown: CancellationToken,
    log: Arc<ConnectionLog>,
) {
    let mut connections = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        let (stream, _) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!(%error, "accept failed");
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let control = Arc::new(ConnControl::default());
        let stream = ControlledStream::new(stream, control.clone());
        let router = router.clone();
        let tls = tls.clone();
        let log = log.clone();
        connections.spawn(async move {
            match tls {
                None => {
                    log.push(ConnectionInfo { tls: false, alpn: None });
                    serve_connection(stream, router, control, false).await;
                }
                Some(acceptor) => match acceptor.accept(stream).await {
                    Ok(stream) => {
                        let alpn = stream.get_ref().1.alpn_protocol().map(|p| String::from_utf8_lossy(p).into_owned());
                        log.push(ConnectionInfo { tls: true, alpn });
                        serve_connection(stream, router, control, true).await;
                    }
                    Err(error) => tracing::debug!(%error, "TLS handshake failed"),
                },
            }
        });
    }
    connections.abort_all();
    while connections.join_next().await.is_some() {}
}

/// HTTP/1.1 or HTTP/2 (whatever the client speaks first) on one connection.
async fn serve_connection<S>(stream: S, router: Router, control: Arc<ConnControl>, tls: bool)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let handle = control.clone();
    let service = hyper::service::service_fn(move |mut request: http::Request<Incoming>| {
        request.extensions_mut().insert(control.clone());
        let original = crate::request::OriginalUri(request.uri().clone());
        request.extensions_mut().insert(original);
        if tls {
            request.extensions_mut().insert(crate::request::ViaTls);
        }
        router.clone().oneshot(request)
    });
    let builder = auto::Builder::new(TokioExecutor::new());
    let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
    // `biased`: once a handler killed the connection it is never polled again, so nothing more
    // is written before it is dropped (with a reset).
    tokio::select! {
        biased;
        () = handle.killed() => {}
        served = connection => if let Err(error) = served {
            tracing::debug!(%error, "connection ended with an error");
        },
    }
    handle.mark_closed();
}
