//! The accept loop: one task per connection, HTTP/1.1 and HTTP/2 with upgrades (WebSocket), a
//! [`ConnControl`] per connection, and shutdown that stops accepting and aborts connections.

use std::sync::Arc;

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::conn::{ConnControl, ControlledStream};

/// Serves `router` on `listener` until `shutdown` is cancelled.
pub async fn serve(listener: TcpListener, router: Router, shutdown: CancellationToken) {
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
        let io = TokioIo::new(ControlledStream::new(stream, control.clone()));
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request: http::Request<Incoming>| {
            request.extensions_mut().insert(control.clone());
            let original = crate::request::OriginalUri(request.uri().clone());
            request.extensions_mut().insert(original);
            router.clone().oneshot(request)
        });
        connections.spawn(async move {
            let builder = auto::Builder::new(TokioExecutor::new());
            if let Err(error) = builder.serve_connection_with_upgrades(io, service).await {
                tracing::debug!(%error, "connection ended with an error");
            }
        });
    }
    connections.abort_all();
    while connections.join_next().await.is_some() {}
}
