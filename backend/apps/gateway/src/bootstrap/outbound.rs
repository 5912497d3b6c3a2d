//! The gateway's own outbound calls (decision 0341): the self-update's release files, the OTLP
//! trace export and the alert webhooks go through `gateway-transport`, the stack the providers
//! use upstream — one TLS configuration (platform roots, rustls with aws-lc), no second HTTP
//! client in the binary. Webhooks reach addresses an admin typed, so their connector checks
//! every address it connects to with the admin SSRF guard (the same policy egress proxies get).

use std::time::Duration;

use crate::config::Config;
use gateway_transport::{Connector, HttpClient, TlsRoots};

use super::StartError;

/// Longest wait for a TCP connection and TLS handshake of the gateway's own calls.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The client of the host's own calls (self-update, OTLP): operator-configured URLs, direct.
pub fn host_client() -> Result<HttpClient, StartError> {
    Ok(HttpClient::new(connector()?))
}

/// The client of alert webhooks: every address of a webhook host passes the SSRF guard's
/// address rules when the connection opens (DNS can change after the URL was checked).
pub fn webhook_client(config: &Config) -> Result<HttpClient, StartError> {
    Ok(HttpClient::new(connector()?.with_target_addresses(proxy_addresses(config))))
}

fn connector() -> Result<Connector, StartError> {
    let roots = TlsRoots::new(None).map_err(|e| StartError::Wiring(format!("outbound TLS: {e}")))?;
    Ok(Connector::new(roots, CONNECT_TIMEOUT))
}

/// The admin SSRF guard's address policy, applied again by the transport each time it connects:
/// to an egress proxy (decision 0244) or to a webhook host (decision 0341).
pub fn proxy_addresses(config: &Config) -> gateway_transport::AddressCheck {
    use gateway_admin::url_guard::{UrlPolicy, address_refused};
    let policy = UrlPolicy { allow_private: config.admin.allow_private_urls };
    gateway_transport::AddressCheck::new(move |ip| match address_refused(ip, policy) {
        Some(class) => Err(class.as_str().to_owned()),
        None => Ok(()),
    })
}
