//! The one connector: TCP to the target or to an egress proxy (HTTP CONNECT or SOCKS5 tunnel),
//! then TLS with the shared configuration when the target is `https`/`wss`.

mod http_connect;
mod socks5;
mod stream;

use std::time::Duration;

use rustls::pki_types::ServerName;
use tokio::net::TcpStream;

pub use self::stream::Stream;
use crate::error::{SendError, local_exhaustion};
use crate::proxy::{ProxyKind, ProxyUrl};
use crate::tls::TlsRoots;

/// Where a connection goes: host, port and whether it speaks TLS.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    pub host: String,
    pub port: u16,
    pub tls: bool,
}

impl Target {
    /// The origin of an `http(s)://` or `ws(s)://` URL.
    pub fn from_uri(uri: &http::Uri) -> Result<Self, SendError> {
        let tls = match uri.scheme_str() {
            Some("https" | "wss") => true,
            Some("http" | "ws") => false,
            _ => return Err(SendError::NotSent(format!("`{uri}` is not http(s) or ws(s)"))),
        };
        let host = uri.host().ok_or_else(|| SendError::NotSent(format!("`{uri}` has no host")))?;
        let host = host.trim_matches(['[', ']']).to_owned();
        let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
        Ok(Self { host, port, tls })
    }

    /// `host:port` as a request target / `Host` value (IPv6 in brackets).
    pub fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// Which ALPN offer a TLS connection makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alpn {
    /// `h2, http/1.1`.
    Http,
    /// None (WebSocket).
    WebSocket,
}

#[derive(Clone, Debug)]
pub struct Connector {
    tls: TlsRoots,
    connect_timeout: Duration,
}

impl Connector {
    pub fn new(tls: TlsRoots, connect_timeout: Duration) -> Self {
        Self { tls, connect_timeout }
    }

    pub fn tls(&self) -> &TlsRoots {
        &self.tls
    }

    /// A connection to `target`, through `proxy` when given, TLS when the target asks for it.
    pub async fn connect(&self, target: &Target, proxy: Option<&ProxyUrl>, alpn: Alpn) -> Result<Stream, SendError> {
        let connecting = async {
            let tcp = match proxy {
                None => tcp_connect(&target.host, target.port).await?,
                Some(proxy) => {
                    let tcp = tcp_connect(proxy.host(), proxy.port()).await.map_err(|e| match e {
                        SendError::LocalResources(m) => SendError::LocalResources(m),
                        other => SendError::ProxyFailed(format!("proxy {}: {other}", proxy.redacted())),
                    })?;
                    match proxy.kind() {
                        ProxyKind::HttpConnect => http_connect::tunnel(tcp, target, proxy).await?,
                        ProxyKind::Socks5 => socks5::tunnel(tcp, target, proxy).await?,
                    }
                }
            };
            if !target.tls {
                return Ok(Stream::Plain(tcp));
            }
            let config = match alpn {
                Alpn::Http => self.tls.http_config(),
                Alpn::WebSocket => self.tls.websocket_config(),
            };
            let name = ServerName::try_from(target.host.clone())
                .map_err(|_| SendError::NotSent(format!("`{}` is not a valid TLS server name", target.host)))?;
            let tls = tokio_rustls::TlsConnector::from(config)
                .connect(name, tcp)
                .await
                .map_err(|e| SendError::NotSent(format!("TLS with {} failed: {e}", target.authority())))?;
            Ok(Stream::Tls(Box::new(tls)))
        };
        tokio::time::timeout(self.connect_timeout, connecting).await.map_err(|_| match proxy {
            Some(proxy) => SendError::ProxyFailed(format!("connecting through {} timed out", proxy.redacted())),
            None => SendError::NotSent(format!("connecting to {} timed out", target.authority())),
        })?
    }
}

async fn tcp_connect(host: &str, port: u16) -> Result<TcpStream, SendError> {
    let tcp = TcpStream::connect((host, port)).await.map_err(|e| {
        if local_exhaustion(&e) {
            SendError::LocalResources(format!("cannot connect: {e}"))
        } else {
            SendError::NotSent(format!("cannot connect to {host}:{port}: {e}"))
        }
    })?;
    let _ = tcp.set_nodelay(true);
    Ok(tcp)
}
