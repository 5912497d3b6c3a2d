//! The one connector: TCP to the target or to an egress proxy (HTTP CONNECT or SOCKS5 tunnel),
//! then TLS with the shared configuration when the target is `https`/`wss`.

pub(crate) mod http_connect;
pub(crate) mod socks5;
mod stream;

use std::time::Duration;

use rustls::pki_types::ServerName;
use tokio::net::TcpStream;

pub use self::stream::Stream;
use crate::address_check::AddressCheck;
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
    /// Applied to every address of an egress proxy when connecting to it.
    proxy_addresses: AddressCheck,
    /// Applied to every address of a target connected to directly (no proxy).
    target_addresses: AddressCheck,
}

impl Connector {
    pub fn new(tls: TlsRoots, connect_timeout: Duration) -> Self {
        Self {
            tls,
            connect_timeout,
            proxy_addresses: AddressCheck::allow_all(),
            target_addresses: AddressCheck::allow_all(),
        }
    }

    /// This connector with `check` applied to the addresses of egress proxies at connect time.
    pub fn with_proxy_addresses(mut self, check: AddressCheck) -> Self {
        self.proxy_addresses = check;
        self
    }

    /// This connector with `check` applied to every address of a target it connects to
    /// directly (decision 0341: the SSRF guard's address rules where the socket opens, for
    /// addresses an admin typed). Through a proxy the proxy resolves the target; its own
    /// addresses pass [`with_proxy_addresses`](Self::with_proxy_addresses).
    pub fn with_target_addresses(mut self, check: AddressCheck) -> Self {
        self.target_addresses = check;
        self
    }

    pub fn tls(&self) -> &TlsRoots {
        &self.tls
    }

    /// A connection to `target`, through `proxy` when given, TLS when the target asks for it.
    pub async fn connect(&self, target: &Target, proxy: Option<&ProxyUrl>, alpn: Alpn) -> Result<Stream, SendError> {
        let connecting = async {
            let tcp = match proxy {
                None => self.target_connect(&target.host, target.port).await?,
                Some(proxy) => {
                    let tcp = self.proxy_connect(proxy).await.map_err(|e| as_proxy_failure(e, proxy))?;
                    match proxy.kind() {
                        ProxyKind::HttpConnect => http_connect::tunnel(tcp, target, proxy).await?,
                        ProxyKind::Socks5 => socks5::tunnel(tcp, target, proxy).await?,
                    }
                }
            };
            if !target.tls {
                return Ok(Stream::Plain(tcp));
            }
            self.tls_handshake(tcp, target, alpn).await.map(|tls| Stream::Tls(Box::new(tls)))
        };
        tokio::time::timeout(self.connect_timeout, connecting).await.map_err(|_| match proxy {
            Some(proxy) => SendError::ProxyFailed(format!("connecting through {} timed out", proxy.redacted())),
            None => SendError::NotSent(format!("connecting to {} timed out", target.authority())),
        })?
    }
}

/// A failure while reaching the proxy is the proxy's (local exhaustion stays local).
pub(crate) fn as_proxy_failure(error: SendError, proxy: &ProxyUrl) -> SendError {
    match error {
        SendError::LocalResources(m) => SendError::LocalResources(m),
        SendError::ProxyFailed(m) => SendError::ProxyFailed(m),
        other => SendError::ProxyFailed(format!("proxy {}: {other}", proxy.redacted())),
    }
}

impl Connector {
    pub(crate) fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// TLS with the shared configuration over an open connection (a tunnel or direct TCP).
    pub(crate) async fn tls_handshake(
        &self,
        tcp: TcpStream,
        target: &Target,
        alpn: Alpn,
    ) -> Result<tokio_rustls::client::TlsStream<TcpStream>, SendError> {
        let config = match alpn {
            Alpn::Http => self.tls.http_config(),
            Alpn::WebSocket => self.tls.websocket_config(),
        };
        let name = ServerName::try_from(target.host.clone())
            .map_err(|_| SendError::NotSent(format!("`{}` is not a valid TLS server name", target.host)))?;
        tokio_rustls::TlsConnector::from(config)
            .connect(name, tcp)
            .await
            .map_err(|e| SendError::TlsFailed(format!("TLS with {} failed: {e}", target.authority())))
    }

    /// TCP to the proxy: its name resolved now, every address checked by the policy, the
    /// allowed ones tried in order. All refused: the proxy's failure, nothing connected.
    pub(crate) async fn proxy_connect(&self, proxy: &ProxyUrl) -> Result<TcpStream, SendError> {
        let resolved = tokio::net::lookup_host((proxy.host(), proxy.port()))
            .await
            .map_err(|e| SendError::ProxyFailed(format!("proxy {} does not resolve: {e}", proxy.redacted())))?;
        let mut refused = None;
        let mut last = None;
        for address in resolved {
            if let Err(class) = self.proxy_addresses.check(address.ip()) {
                refused = Some(class);
                continue;
            }
            match tcp_connect_addr(address).await {
                Ok(tcp) => return Ok(tcp),
                Err(error) => last = Some(error),
            }
        }
        Err(match (last, refused) {
            (Some(error), _) => error,
            (None, Some(class)) => SendError::ProxyFailed(format!(
                "proxy {} resolves to a refused {class} address (checked when connecting)",
                proxy.redacted()
            )),
            (None, None) => SendError::ProxyFailed(format!("proxy {} has no address", proxy.redacted())),
        })
    }
}

async fn tcp_connect_addr(address: std::net::SocketAddr) -> Result<TcpStream, SendError> {
    let tcp = TcpStream::connect(address).await.map_err(|e| {
        if local_exhaustion(&e) {
            SendError::LocalResources(format!("cannot connect: {e}"))
        } else {
            SendError::NotSent(format!("cannot connect to {address}: {e}"))
        }
    })?;
    let _ = tcp.set_nodelay(true);
    Ok(tcp)
}

impl Connector {
    /// TCP to `host:port`: the name resolved first (a failure there is
    /// [`SendError::NameNotResolved`]), then each address the target check allows tried in
    /// order, as `TcpStream::connect` does. All refused: [`SendError::Refused`], nothing connected.
    async fn target_connect(&self, host: &str, port: u16) -> Result<TcpStream, SendError> {
        let addresses = tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| SendError::NameNotResolved(format!("{host} does not resolve: {e}")))?;
        let (mut last, mut refused) = (None, None);
        for address in addresses {
            if let Err(class) = self.target_addresses.check(address.ip()) {
                refused = Some(class);
                continue;
            }
            match tcp_connect_addr(address).await {
                Ok(tcp) => return Ok(tcp),
                Err(error @ SendError::LocalResources(_)) => return Err(error),
                Err(error) => last = Some(error),
            }
        }
        Err(match (last, refused) {
            (Some(error), _) => error,
            (None, Some(class)) => {
                SendError::Refused(format!("{host} resolves to a refused {class} address (checked when connecting)"))
            }
            (None, None) => SendError::NameNotResolved(format!("{host} has no address")),
        })
    }
}
