//! The hot-path HTTP/1.1 client to the Codex backend.
//!
//! Our own minimal client, not hyper's: a request writes its head and body in one vectored
//! write on a pooled keep-alive connection and reads the response on the same task — no
//! connection task, no dispatch channel, no hand-off. A connection is a socket plus a read
//! buffer that is allocated (4 KB) only when bytes are ready to be read and released whenever it
//! is empty, so an open SSE stream waiting for its next event holds no buffer at all; hyper's
//! client held ≈ 25 KB per open stream (fixed 8 KB write and read buffers and its dispatch
//! channel; `docs/performance.md`).
//!
//! - `codec.rs`: request head, response head (`httparse`), body framing (length, chunked,
//!   until close);
//! - `conn.rs`: one connection (plain TCP or TLS) and its read buffer;
//! - `pool.rs`: idle connections, checked for a close without waiting before reuse.
//!
//! A connection returns to the pool only after a complete HTTP/1.1 body without
//! `connection: close` and with no bytes after it. Identity never rides on a connection
//! (invariant 7): every request carries its account's headers, and a connection holds nothing
//! between requests.

mod codec;
mod conn;
mod pool;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use gateway_protocol::request::SplicedBody;
use http::{HeaderMap, Method, Uri};
use tokio::net::TcpStream;

use self::codec::Framing;
use self::conn::{Conn, Io};
use self::pool::Pool;

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
    pool: Pool,
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
            pool: Pool::new(256, Duration::from_secs(60)),
            connect_timeout: Duration::from_secs(10),
        }))
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
            let io = match &self.tls {
                None => Io::Plain(tcp),
                Some(tls) => {
                    let name = rustls::pki_types::ServerName::try_from(self.host.clone())
                        .map_err(|_| SendError::NotSent("invalid TLS server name".to_owned()))?;
                    let stream = tls.connect(name, tcp).await;
                    Io::Tls(Box::new(stream.map_err(|e| SendError::NotSent(format!("TLS failed: {e}")))?))
                }
            };
            Ok(Conn::new(io))
        };
        tokio::time::timeout(self.connect_timeout, connecting)
            .await
            .map_err(|_| SendError::NotSent("connect timed out".to_owned()))?
    }

    /// Sends `method path` with `headers` and `body`; returns at the response headers. A
    /// spliced body is written as its parts, never joined into one buffer.
    pub async fn send(
        self: &Arc<Self>,
        method: Method,
        path: &str,
        headers: HeaderMap,
        body: impl Into<SplicedBody>,
    ) -> Result<Response, SendError> {
        let body = body.into();
        let head =
            codec::encode_head(&method, path, &self.authority, &headers, body.len()).map_err(SendError::NotSent)?;
        let head_request = method == Method::HEAD;
        // A pooled connection may turn out dead before our bytes left: one fresh retry.
        if let Some(conn) = self.pool.checkout() {
            match self.exchange(conn, &head, &body, head_request).await {
                Err(Attempt::Stale) => {}
                Err(Attempt::Failed(error)) => return Err(error),
                Ok(response) => return Ok(response),
            }
        }
        let conn = self.connect().await?;
        match self.exchange(conn, &head, &body, head_request).await {
            Ok(response) => Ok(response),
            Err(Attempt::Stale) => Err(SendError::NotSent("the new connection refused the request".to_owned())),
            Err(Attempt::Failed(error)) => Err(error),
        }
    }

    async fn exchange(
        self: &Arc<Self>,
        mut conn: Conn,
        head: &[u8],
        body: &SplicedBody,
        head_request: bool,
    ) -> Result<Response, Attempt> {
        if let Err(failed) = conn.write_request(head, body.parts()).await {
            if failed.accepted == 0 {
                return Err(Attempt::Stale);
            }
            let reason = format!("writing the request failed: {}", failed.error);
            return Err(Attempt::Failed(SendError::Ambiguous(reason)));
        }
        let response = conn.read_head(head_request).await.map_err(|e| Attempt::Failed(SendError::Ambiguous(e)))?;
        let mut body =
            Body { conn: Some(conn), framing: response.framing, keep_alive: response.keep_alive, client: self.clone() };
        body.finish_if_done();
        Ok(Response { status: response.status, headers: response.headers, body })
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

/// A response body, read from the connection by the caller's task; the connection returns to
/// the pool as soon as the body is complete.
pub struct Body {
    /// `None` once the body is complete or failed.
    conn: Option<Conn>,
    framing: Framing,
    keep_alive: bool,
    client: Arc<Http1Client>,
}

impl Body {
    /// The next data chunk, as soon as it arrives; `None` at the end of the body.
    pub async fn chunk(&mut self) -> Option<Result<Bytes, String>> {
        loop {
            let conn = self.conn.as_mut()?;
            match self.framing.decode(&mut conn.buf) {
                Err(error) => return Some(Err(self.fail(error))),
                Ok(Some(data)) => {
                    conn.release_if_empty();
                    self.finish_if_done();
                    return Some(Ok(data));
                }
                Ok(None) if self.framing.is_done() => {
                    self.finish_if_done();
                    return None;
                }
                Ok(None) => {}
            }
            match conn.fill().await {
                Ok(0) => {
                    // A body that ends at the close leaves a connection nobody can reuse.
                    self.keep_alive = false;
                    if let Err(error) = self.framing.end_of_input() {
                        return Some(Err(self.fail(error)));
                    }
                }
                Ok(_) => {}
                Err(error) => return Some(Err(self.fail(format!("reading the body failed: {error}")))),
            }
        }
    }

    fn fail(&mut self, error: String) -> String {
        self.conn = None;
        error
    }

    /// Once the body is complete, the connection goes back to the pool if it can be reused.
    fn finish_if_done(&mut self) {
        if !self.framing.is_done() {
            return;
        }
        if let Some(conn) = self.conn.take()
            && self.keep_alive
            && conn.buf.is_empty()
        {
            self.client.pool.checkin(conn);
        }
    }
}
