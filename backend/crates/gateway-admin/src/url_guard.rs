//! The SSRF guard for every URL an admin can set (the backup endpoint now, webhooks later).
//!
//! A URL passes when it parses (WHATWG rules, so `http://2130706433/`, `http://0x7f.1/` and
//! `http://0177.0.0.1/` all read as `127.0.0.1`), is `https` (`http` only to an address that
//! `admin.allow_private_urls` opens), carries no credentials, and every address its host
//! resolves to passes [`address_refused`]. Resolution goes through the [`HostResolver`] port
//! with a deadline; a name that does not resolve is refused (the guard cannot vouch for it).
//! Messages never echo the URL. Decision 0143.
//!
//! The check runs when the URL is saved. Whatever later connects to it must check the
//! addresses it actually connects to with the same [`address_refused`] (DNS can change).

mod address_policy;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use url::{Host, Url};

use crate::ports::HostResolver;

pub use address_policy::{AddressClass, address_refused, classify};

/// How long a name may take to resolve before the URL is refused.
pub const RESOLVE_TIMEOUT: Duration = Duration::from_secs(3);

/// The configurable part of the policy (`admin.allow_private_urls`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    /// Allow loopback, private, link-local, CGNAT and unique-local addresses (and plain `http`
    /// to them). Cloud metadata, unspecified and non-unicast addresses stay refused.
    pub allow_private: bool,
}

/// Why a URL was refused. The messages name the rule, never the URL or its parts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRefusal {
    #[error("is not a valid URL")]
    Malformed,
    #[error("must be an https:// URL")]
    Scheme,
    #[error("must not contain a user name or password (give storage keys in their own fields)")]
    Credentials,
    #[error("must name a host")]
    NoHost,
    #[error("must use https:// (plain http is allowed only to private addresses with admin.allow_private_urls)")]
    PlainHttp,
    #[error("names a host that does not resolve")]
    Unresolvable,
    #[error("names a host that did not resolve in time")]
    ResolveTimeout,
    #[error("points to a {} address, which is refused (see admin.allow_private_urls)", .0.as_str())]
    Address(AddressClass),
}

/// The guard: the policy plus the resolver it needs.
pub struct UrlGuard {
    resolver: Arc<dyn HostResolver>,
    policy: UrlPolicy,
    resolve_timeout: Duration,
}

impl UrlGuard {
    pub fn new(resolver: Arc<dyn HostResolver>, policy: UrlPolicy) -> Self {
        Self { resolver, policy, resolve_timeout: RESOLVE_TIMEOUT }
    }

    pub fn with_resolve_timeout(mut self, timeout: Duration) -> Self {
        self.resolve_timeout = timeout;
        self
    }

    pub fn policy(&self) -> UrlPolicy {
        self.policy
    }

    /// Checks `text` (see the module docs).
    pub async fn check(&self, text: &str) -> Result<(), UrlRefusal> {
        let url = Url::parse(text.trim()).map_err(|_| UrlRefusal::Malformed)?;
        let plain_http = match url.scheme() {
            "https" => false,
            "http" => true,
            _ => return Err(UrlRefusal::Scheme),
        };
        if !url.username().is_empty() || url.password().is_some() {
            return Err(UrlRefusal::Credentials);
        }
        let port = url.port_or_known_default().ok_or(UrlRefusal::Malformed)?;
        let addresses = match url.host().ok_or(UrlRefusal::NoHost)? {
            Host::Ipv4(ip) => vec![IpAddr::V4(ip)],
            Host::Ipv6(ip) => vec![IpAddr::V6(ip)],
            Host::Domain(name) => self.resolve(name, port).await?,
        };
        let mut all_private = true;
        for ip in addresses {
            if let Some(class) = address_refused(ip, self.policy) {
                return Err(UrlRefusal::Address(class));
            }
            all_private &= classify(ip).is_some();
        }
        if plain_http && !all_private {
            return Err(UrlRefusal::PlainHttp);
        }
        Ok(())
    }

    /// Checks only the addresses `host` names (an egress proxy, decision 0243: its scheme and
    /// user info have their own rules): every one must pass [`address_refused`].
    pub async fn check_host(&self, host: Host<&str>, port: u16) -> Result<(), UrlRefusal> {
        let addresses = match host {
            Host::Ipv4(ip) => vec![IpAddr::V4(ip)],
            Host::Ipv6(ip) => vec![IpAddr::V6(ip)],
            // A non-special scheme (`socks5://`) leaves an address literal as a name.
            Host::Domain(name) => match name.parse::<IpAddr>() {
                Ok(ip) => vec![ip],
                Err(_) => self.resolve(name, port).await?,
            },
        };
        match addresses.into_iter().find_map(|ip| address_refused(ip, self.policy)) {
            Some(class) => Err(UrlRefusal::Address(class)),
            None => Ok(()),
        }
    }

    async fn resolve(&self, name: &str, port: u16) -> Result<Vec<IpAddr>, UrlRefusal> {
        match tokio::time::timeout(self.resolve_timeout, self.resolver.resolve(name, port)).await {
            Err(_) => Err(UrlRefusal::ResolveTimeout),
            Ok(Err(_)) => Err(UrlRefusal::Unresolvable),
            Ok(Ok(addresses)) if addresses.is_empty() => Err(UrlRefusal::Unresolvable),
            Ok(Ok(addresses)) => Ok(addresses),
        }
    }
}
