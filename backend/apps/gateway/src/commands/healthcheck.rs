//! `switchboard healthcheck`: asks this gateway's `/readyz` (the container HEALTHCHECK; the
//! image has no curl).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use crate::config::Config;

use crate::bootstrap::StartError;

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
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .build()
        .map_err(|e| StartError::Wiring(format!("cannot build an HTTP client: {e}")))?;
    let response = client.get(&url).send().await.map_err(|e| StartError::Wiring(format!("{url}: {e}")))?;
    let status = response.status();
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    let state = body["status"].as_str().unwrap_or("unknown");
    if status.is_success() {
        println!("{url}: {} {state}", status.as_u16());
        Ok(())
    } else {
        Err(StartError::Wiring(format!("{url}: {} {state}", status.as_u16())))
    }
}
