//! `switchboard healthcheck`: asks this gateway's `/readyz` (the container HEALTHCHECK; the
//! image has no curl), over the one outbound stack (decision 0341): plain HTTP on loopback.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use gateway_transport::{Connector, HttpClient, HttpRequest, TlsRoots};

use crate::config::Config;

use crate::bootstrap::StartError;

/// The most of a `/readyz` answer read.
const READYZ_BODY_LIMIT: usize = 64 * 1024;

/// Where to ask: the listen address, with an unspecified IP (0.0.0.0, ::) replaced by loopback.
pub fn probe_address(listen: SocketAddr) -> SocketAddr {
    let ip = match listen.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, listen.port())
}

/// Ok when `/readyz` answers 200 within `timeout`; prints the status either way.
pub async fn check(config: Config, timeout: Duration) -> Result<(), StartError> {
    let url = format!("http://{}/readyz", probe_address(config.server.listen));
    let wiring = |e: &dyn std::fmt::Display| StartError::Wiring(format!("{url}: {e}"));
    let roots = TlsRoots::new(None).map_err(|e| wiring(&e))?;
    let client = HttpClient::new(Connector::new(roots, timeout));
    let request = HttpRequest::get(&url).map_err(|e| wiring(&e))?;
    let answer = client.fetch(request, None, timeout, READYZ_BODY_LIMIT).await;
    client.close().await;
    let answer = answer.map_err(|e| wiring(&e))?;
    let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap_or_default();
    let state = body["status"].as_str().unwrap_or("unknown");
    if (200..300).contains(&answer.status) {
        println!("{url}: {} {state}", answer.status);
        Ok(())
    } else {
        Err(StartError::Wiring(format!("{url}: {} {state}", answer.status)))
    }
}
