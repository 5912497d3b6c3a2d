//! The upstream transport every provider uses for every call it makes (inference, OAuth, usage,
//! catalog, version check, WebSocket): one [`Connector`] (TCP, one shared rustls configuration
//! with the platform roots plus an optional extra CA file, HTTP CONNECT and SOCKS5 egress
//! proxies), an HTTP client over hyper that speaks HTTP/2 when the server agrees by ALPN and
//! HTTP/1.1 otherwise ([`HttpClient`]; `gzip`/`zstd` answer bodies decoded as they arrive,
//! `http/decode.rs`), WebSocket via tungstenite over the same connector with a bounded read
//! buffer ([`websocket`]), and the health probe of an egress proxy ([`probe`]: a tunnel and a
//! TLS handshake, no request).
//!
//! Invariants:
//! - knows no provider: URLs, headers and bodies come from the caller; nothing here adds an
//!   identity header (SPEC §3 invariant 7: pooled connections carry no identity, every request
//!   carries its own);
//! - connections are pooled per origin *and* egress route, so a request for an account behind
//!   a proxy never rides a connection opened without it (or through another proxy);
//! - an egress proxy's addresses are checked by the caller's [`AddressCheck`] each time a
//!   connection to it opens (DNS can change between saving a proxy and using it);
//! - secrets in proxy URLs (user info) never reach `Debug`, logs or errors ([`ProxyUrl`]);
//! - every connection task is owned by the client's task tracker and stops when it is closed;
//! - depends on no workspace crate but `gateway-protocol`.

pub mod address_check;
pub mod connect;
pub mod cookies;
pub mod edge;
pub mod error;
pub mod http;
pub mod probe;
pub mod proxy;
pub mod tls;
pub mod upstream_url;
pub mod websocket;

pub use address_check::AddressCheck;
pub use connect::{Connector, Stream, Target};
pub use cookies::{CookieEntry, CookieJar};
pub use edge::{ErrorSource, error_source, retry_after};
pub use error::SendError;
pub use http::decode::ACCEPT_ENCODING;
pub use http::{Body, FetchError, Fetched, HttpClient, HttpRequest, HttpResponse};
pub use probe::{PhaseTiming, ProbePhase, ProbeReport};
pub use proxy::{InvalidProxy, ProxyKind, ProxyUrl};
pub use tls::{TlsError, TlsRoots};
