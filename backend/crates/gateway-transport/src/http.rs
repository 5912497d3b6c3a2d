//! The HTTP client over hyper's client connections: HTTP/2 when the TLS server agrees to `h2`,
//! HTTP/1.1 otherwise (plain `http://` is always HTTP/1.1). One request = one call of
//! [`HttpClient::send`], returning at the response headers.

mod body;
pub mod decode;
mod fetch;
mod pool;
mod request;

use std::sync::Arc;
use std::time::Duration;

use http::{HeaderValue, Uri, Version};
use hyper::client::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use self::body::Body;
pub use self::fetch::{FetchError, Fetched};
use self::pool::{Checkin, Lease, Pool, PoolKey, Pooled};
pub use self::request::{HttpRequest, HttpResponse};
use crate::connect::{Alpn, Connector, Target};
use crate::error::SendError;
use crate::proxy::ProxyUrl;

/// Shared by every provider; cheap to clone.
#[derive(Clone)]
pub struct HttpClient {
    connector: Connector,
    pool: Arc<Pool>,
    tasks: TaskTracker,
    closed: CancellationToken,
}

impl HttpClient {
    pub fn new(connector: Connector) -> Self {
        Self {
            connector,
            pool: Pool::new(Duration::from_secs(90)),
            tasks: TaskTracker::new(),
            closed: CancellationToken::new(),
        }
    }

    pub fn connector(&self) -> &Connector {
        &self.connector
    }

    /// Closes every connection (their tasks end); later sends open new ones.
    pub async fn close(&self) {
        self.closed.cancel();
        self.tasks.close();
        self.tasks.wait().await;
    }

    /// Sends `request` directly or through `proxy`; returns at the response headers.
    pub async fn send(&self, request: HttpRequest, proxy: Option<&ProxyUrl>) -> Result<HttpResponse, SendError> {
        let target = Target::from_uri(&request.uri)?;
        let key: PoolKey = (target.clone(), proxy.map(ProxyUrl::pool_key));
        // A pooled connection may turn out closed before our request left: one fresh retry.
        let request = match self.on_pooled(&key, &target, request).await {
            Ok(result) => return result,
            Err(back) => back,
        };
        // A connection another request is opening may take this one too (TLS may agree to h2).
        let may_multiplex = target.tls;
        let request = match self.pool.join_dial(&key, may_multiplex) {
            Some(wait) => {
                wait.finished().await;
                match self.on_pooled(&key, &target, request).await {
                    Ok(result) => return result,
                    Err(back) => back,
                }
            }
            None => request,
        };
        let ticket = self.pool.start_dial(&key, may_multiplex);
        let pooled = self.open(&key, &target, proxy).await?;
        drop(ticket);
        match self.exchange(pooled, &key, &target, request).await {
            Exchange::Done(result) => result,
            Exchange::Unsent(_) => Err(SendError::NotSent("the new connection refused the request".to_owned())),
        }
    }

    /// Sends on a pooled connection with room, if there is one; the request comes back when
    /// there is none or the connection refused it before any of it left.
    async fn on_pooled(
        &self,
        key: &PoolKey,
        target: &Target,
        request: HttpRequest,
    ) -> Result<Result<HttpResponse, SendError>, HttpRequest> {
        let Some(pooled) = self.pool.checkout(key) else { return Err(request) };
        match self.exchange(pooled, key, target, request).await {
            Exchange::Done(result) => Ok(result),
            Exchange::Unsent(back) => Err(back),
        }
    }

    async fn open(&self, key: &PoolKey, target: &Target, proxy: Option<&ProxyUrl>) -> Result<Pooled, SendError> {
        let stream = self.connector.connect(target, proxy, Alpn::Http).await?;
        let h2 = stream.is_h2();
        let io = TokioIo::new(stream);
        let closed = self.closed.clone();
        if h2 {
            let (sender, connection) = http2::Builder::new(TokioExecutor::new())
                .timer(hyper_util::rt::TokioTimer::new())
                .keep_alive_interval(Duration::from_secs(30))
                .handshake(io)
                .await
                .map_err(|e| SendError::NotSent(format!("HTTP/2 handshake failed: {e}")))?;
            self.tasks.spawn(async move {
                tokio::select! {
                    () = closed.cancelled() => {}
                    result = connection => if let Err(error) = result { tracing::debug!(%error, "upstream HTTP/2 connection ended") },
                }
            });
            let slot = self.pool.share_h2(key.clone(), sender.clone());
            Ok(Pooled::H2(sender, slot))
        } else {
            self.pool.note_h1(key);
            let (sender, connection) = http1::Builder::new()
                .handshake(io)
                .await
                .map_err(|e| SendError::NotSent(format!("HTTP/1.1 handshake failed: {e}")))?;
            self.tasks.spawn(async move {
                tokio::select! {
                    () = closed.cancelled() => {}
                    result = connection => if let Err(error) = result { tracing::debug!(%error, "upstream HTTP/1.1 connection ended") },
                }
            });
            Ok(Pooled::H1(sender))
        }
    }

    async fn exchange(&self, pooled: Pooled, key: &PoolKey, target: &Target, request: HttpRequest) -> Exchange {
        match pooled {
            Pooled::H2(mut sender, slot) => {
                let outgoing = match to_hyper(request, Version::HTTP_2, target) {
                    Ok(outgoing) => outgoing,
                    Err(error) => return Exchange::Done(Err(error)),
                };
                if sender.ready().await.is_err() {
                    return Exchange::Unsent(from_hyper(outgoing));
                }
                match sender.try_send_request(outgoing).await {
                    Ok(response) => Exchange::Done(Ok(HttpResponse::new(response, Some(Lease::H2(slot))))),
                    Err(mut error) => match error.take_message() {
                        Some(unsent) => Exchange::Unsent(from_hyper(unsent)),
                        None => Exchange::Done(Err(ambiguous(error.error()))),
                    },
                }
            }
            Pooled::H1(mut sender) => {
                let outgoing = match to_hyper(request, Version::HTTP_11, target) {
                    Ok(outgoing) => outgoing,
                    Err(error) => return Exchange::Done(Err(error)),
                };
                if sender.ready().await.is_err() {
                    return Exchange::Unsent(from_hyper(outgoing));
                }
                match sender.try_send_request(outgoing).await {
                    Ok(response) => {
                        let checkin = Checkin { pool: self.pool.clone(), key: key.clone(), sender };
                        Exchange::Done(Ok(HttpResponse::new(response, Some(Lease::H1(checkin)))))
                    }
                    Err(mut error) => match error.take_message() {
                        Some(unsent) => Exchange::Unsent(from_hyper(unsent)),
                        None => Exchange::Done(Err(ambiguous(error.error()))),
                    },
                }
            }
        }
    }
}

enum Exchange {
    Done(Result<HttpResponse, SendError>),
    /// The connection refused the request before any of it left: retry elsewhere.
    Unsent(HttpRequest),
}

fn ambiguous(error: &hyper::Error) -> SendError {
    SendError::Ambiguous(format!("the upstream exchange failed: {error}"))
}

/// HTTP/2 takes the absolute URI (`:scheme`, `:authority`); HTTP/1.1 the origin form plus `Host`.
fn to_hyper(request: HttpRequest, version: Version, target: &Target) -> Result<http::Request<Body>, SendError> {
    let HttpRequest { method, uri, mut headers, body } = request;
    let uri = if version == Version::HTTP_2 {
        uri
    } else {
        if !headers.contains_key(http::header::HOST) {
            let host = uri.authority().map(|a| a.as_str().to_owned()).unwrap_or_else(|| target.authority());
            let host = HeaderValue::from_str(&host).map_err(|_| SendError::NotSent("invalid host".to_owned()))?;
            headers.insert(http::header::HOST, host);
        }
        let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
        path.parse::<Uri>().map_err(|_| SendError::NotSent(format!("`{path}` is not a valid path")))?
    };
    let mut outgoing = http::Request::new(body);
    *outgoing.method_mut() = method;
    *outgoing.uri_mut() = uri;
    *outgoing.version_mut() = version;
    *outgoing.headers_mut() = headers;
    outgoing.extensions_mut().insert(Scheme(if target.tls { "https" } else { "http" }));
    Ok(outgoing)
}

/// Back from hyper's form, for a retry on another connection (which re-derives the form).
fn from_hyper(request: http::Request<Body>) -> HttpRequest {
    let (parts, body) = request.into_parts();
    let mut headers = parts.headers;
    // The origin form lost scheme and authority: rebuild the absolute URI from `Host`.
    let uri = if parts.uri.scheme().is_some() {
        parts.uri
    } else {
        let host = headers.get(http::header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default().to_owned();
        let scheme = parts.extensions.get::<Scheme>().map(|s| s.0).unwrap_or("http");
        headers.remove(http::header::HOST);
        let path = parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
        format!("{scheme}://{host}{path}").parse().unwrap_or(parts.uri)
    };
    HttpRequest { method: parts.method, uri, headers, body }
}

/// The original scheme of a request sent in origin form.
#[derive(Clone, Copy)]
struct Scheme(&'static str);
