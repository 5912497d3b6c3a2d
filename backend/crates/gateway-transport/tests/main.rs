//! Tests of the upstream transport against the simulator over real sockets: TLS with the
//! simulator's test CA, HTTP/2 by ALPN, HTTP/1.1 fallback, WebSocket, and the egress proxies
//! (tiny local HTTP CONNECT and SOCKS5 proxies in `support/`).

mod decode;
mod over_tls;
mod probe;
mod proxies;
mod proxy_addresses;
mod proxy_url;
mod support;
mod target_addresses;
