//! The hot-path HTTP/1.1 client to the Codex backend.
//!
//! Keep-alive connections are pooled per client; each request takes one connection and drives
//! it itself — the connection future is polled by the task that reads the response, not by a
//! spawned connection task — so a request costs no task hand-offs beyond the socket's own
//! readiness. Identity never rides on a connection (invariant 7): every request carries its
//! account's headers, and a connection holds nothing between requests.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::{Connection, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// Any stream a connection runs on (plain TCP or TLS).
pub trait Io: AsyncRead + AsyncWrite + Send + Unpin + 'static {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Io for T {}

/// Read buffer of an upstream connection (SSE events are small; bigger chunks take more reads).
const READ_BUFFER: usize = 8 * 1024;

type Driver = Pin<Box<Connection<TokioIo<Box<dyn Io>>, Full<Bytes>>>>;

struct Conn {
    sender: SendRequest<Full<Bytes>>,
    driver: Driver,
    idle_since: Instant,
}

/// Why a request did not produce a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendError {
    /// Nothing was sent (connect, TLS or a stale pooled connection refused the write).
    NotSent(String),
    /// The request may have reached the server.
    Ambiguous(String),
    /// This process ran out of descriptors or local ports: not the upstream's fault.
    LocalResources(String),
}

/// Connect errors that say this host is out of resources rather than the upstream failing.
fn local_exhaustion(error: &std::io::Error) -> bool {
    // EMFILE, ENFILE, EADDRNOTAVAIL, ENOBUFS
    matches!(error.raw_os_error(), Some(24 | 23 | 99 | 105))
}

pub struct Http1Client {
    scheme_https: bool,
    host: String,
    port: u16,
    authority: String,
    tls: Option<tokio_rustls::TlsConnector>,
    idle: Mutex<Vec<Conn>>,
    max_idle: usize,
    idle_timeout: Duration,
    connect_timeout: Duration,
}

impl Http1Client {
    /// A client for the origin of `base_url` (`http://` or `https://`).
    pub fn new(base_url: &str) -> Result<Arc<Self>, String> {
        let uri: Uri = base_url.parse().map_err(|_| format!("`{base_url}` is not a URL"))?;
        let https = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => return Err(format!("`{base_url}` is not http(s)")),
        };
        let host = uri.host().ok_or_else(|| format!("`{base_url}` has no host"))?.trim_matches(['[', ']']).to_owned();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let authority = uri.authority().map(|a| a.as_str().to_owned()).unwrap_or_else(|| host.clone());
        let tls = https.then(|| {
            let mut roots = rustls::RootCertStore::empty();
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            let mut config = rustls::ClientConfig::builder().with_root_certificates(roots).with_no_client_auth();
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            tokio_rustls::TlsConnector::from(Arc::new(config))
        });
        Ok(Arc::new(Self {
            scheme_https: https,
            host,
            port,
            authority,
            tls,
            idle: Mutex::new(Vec::new()),
            max_idle: 256,
            idle_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
        }))
    }

    fn lock_idle(&self) -> std::sync::MutexGuard<'_, Vec<Conn>> {
        self.idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A live idle connection, most recently used first; stale ones are dropped.
    fn checkout(&self) -> Option<Conn> {
        let mut idle = self.lock_idle();
        while let Some(mut conn) = idle.pop() {
            if conn.idle_since.elapsed() > self.idle_timeout || conn.sender.is_closed() {
                continue;
            }
            // Let the connection notice a close that arrived while it sat idle.
            let waker = futures_util::task::noop_waker();
            let mut cx = std::task::Context::from_waker(&waker);
            if conn.driver.as_mut().poll(&mut cx).is_ready() || conn.sender.is_closed() {
                continue;
            }
            return Some(conn);
        }
        None
    }

    fn checkin(&self, mut conn: Conn) {
        if conn.sender.is_closed() {
            return;
        }
        conn.idle_since = Instant::now();
        let mut idle = self.lock_idle();
        if idle.len() < self.max_idle {
            idle.push(conn);
        }
    }

    async fn connect(&self) -> Result<Conn, SendError> {
        let connecting = async {
            let tcp = TcpStream::connect((self.host.as_str(), self.port)).await.map_err(|e| {
                if local_exhaustion(&e) {
                    SendError::LocalResources(format!("cannot connect: {e}"))
                } else {
                    SendError::NotSent(format!("cannot connect: {e}"))
                }
            })?;
            let _ = tcp.set_nodelay(true);
            let io: Box<dyn Io> = match &self.tls {
                None => Box::new(tcp),
                Some(tls) => {
                    let name = rustls::pki_types::ServerName::try_from(self.host.clone())
                        .map_err(|_| SendError::NotSent("invalid TLS server name".to_owned()))?;
                    Box::new(tls.connect(name, tcp).await.map_err(|e| SendError::NotSent(format!("TLS failed: {e}")))?)
                }
            };
            // A fixed, small read buffer: a stream reads one event at a time, and thousands of
            // open streams must not each hold a grown buffer.
            let (sender, driver) = hyper::client::conn::http1::Builder::new()
                .read_buf_exact_size(Some(READ_BUFFER))
                .handshake(TokioIo::new(io))
                .await
                .map_err(|e| SendError::NotSent(format!("HTTP handshake failed: {e}")))?;
            Ok(Conn { sender, driver: Box::pin(driver), idle_since: Instant::now() })
        };
        tokio::time::timeout(self.connect_timeout, connecting)
            .await
            .map_err(|_| SendError::NotSent("connect timed out".to_owned()))?
    }

    /// Sends `method path` with `headers` and `body`; returns at the response headers.
    pub async fn send(
        self: &Arc<Self>,
        method: Method,
        path: &str,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<Response, SendError> {
        // A pooled connection may turn out dead before our bytes left: one fresh retry.
        if let Some(conn) = self.checkout() {
            match self.exchange(conn, &method, path, &headers, body.clone()).await {
                Err(Attempt::Stale) => {}
                Err(Attempt::Failed(error)) => return Err(error),
                Ok(response) => return Ok(response),
            }
        }
        let conn = self.connect().await?;
        match self.exchange(conn, &method, path, &headers, body).await {
            Ok(response) => Ok(response),
            Err(Attempt::Stale) => Err(SendError::NotSent("the new connection closed at once".to_owned())),
            Err(Attempt::Failed(error)) => Err(error),
        }
    }

    async fn exchange(
        self: &Arc<Self>,
        mut conn: Conn,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Result<Response, Attempt> {
        let mut request = Request::builder().method(method.clone()).uri(path);
        if let Some(map) = request.headers_mut() {
            map.clone_from(headers);
            if let Ok(host) = http::HeaderValue::from_str(&self.authority) {
                map.insert(http::header::HOST, host);
            }
        }
        let request = request.body(Full::new(body)).map_err(|e| Attempt::Failed(SendError::NotSent(e.to_string())))?;
        let Conn { sender, driver, .. } = &mut conn;
        // Readiness needs the connection driven: it signals that it wants a request.
        let ready = tokio::select! {
            biased;
            ready = std::future::poll_fn(|cx| sender.poll_ready(cx)) => ready.is_ok(),
            _closed = driver.as_mut() => false,
        };
        if !ready {
            return Err(Attempt::Stale);
        }
        let sending = sender.send_request(request);
        tokio::pin!(sending);
        let response = tokio::select! {
            biased;
            response = &mut sending => response,
            _closed = driver.as_mut() => {
                // The connection ended before a response arrived.
                return Err(Attempt::Failed(SendError::Ambiguous("the upstream connection closed".to_owned())));
            }
        };
        match response {
            Ok(response) => {
                let (parts, body) = response.into_parts();
                Ok(Response {
                    status: parts.status.as_u16(),
                    headers: parts.headers,
                    body: Body { body, conn: Some(conn), client: self.clone(), finished: false },
                })
            }
            Err(error) if error.is_canceled() => Err(Attempt::Stale),
            Err(error) => Err(Attempt::Failed(SendError::Ambiguous(format!("the upstream exchange failed: {error}")))),
        }
    }

    pub fn is_https(&self) -> bool {
        self.scheme_https
    }
}

enum Attempt {
    /// The connection was unusable before the request left: retry on a fresh one.
    Stale,
    Failed(SendError),
}

pub struct Response {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Body,
}

/// A response body; reading it drives the connection, which returns to the pool at the end.
pub struct Body {
    body: Incoming,
    conn: Option<Conn>,
    client: Arc<Http1Client>,
    finished: bool,
}

impl Body {
    /// The next data chunk; `None` at the end of the body.
    pub async fn chunk(&mut self) -> Option<Result<Bytes, String>> {
        if self.finished {
            return None;
        }
        loop {
            enum Step {
                Frame(Option<Result<hyper::body::Frame<Bytes>, hyper::Error>>),
                Closed,
            }
            let step = match self.conn.as_mut() {
                Some(conn) => tokio::select! {
                    biased;
                    frame = self.body.frame() => Step::Frame(frame),
                    _ = conn.driver.as_mut() => Step::Closed,
                },
                None => Step::Frame(self.body.frame().await),
            };
            let next = match step {
                // The connection ended; whatever the body still holds is read on the next turn.
                Step::Closed => {
                    self.conn = None;
                    continue;
                }
                Step::Frame(frame) => frame,
            };
            match next {
                None => {
                    self.finished = true;
                    if let Some(conn) = self.conn.take() {
                        self.client.checkin(conn);
                    }
                    return None;
                }
                Some(Err(error)) => {
                    self.finished = true;
                    self.conn = None;
                    return Some(Err(error.to_string()));
                }
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data()
                        && !data.is_empty()
                    {
                        return Some(Ok(data));
                    }
                }
            }
        }
    }
}
