//! Name resolution for the URL guard (`url_guard`): DNS is I/O, so the guard asks this port and
//! keeps the decision — which addresses are refused — to itself.

use std::net::IpAddr;

use async_trait::async_trait;

/// Why a name did not resolve; the message never contains the URL it came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ResolveError(pub String);

#[async_trait]
pub trait HostResolver: Send + Sync {
    /// Every address `host` resolves to (a name, never an IP literal: the guard checks those
    /// itself). An empty list counts as not resolving.
    async fn resolve(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, ResolveError>;
}
