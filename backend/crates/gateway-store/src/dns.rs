//! `HostResolver` over the operating system's resolver (`getaddrinfo` through tokio, on its
//! blocking pool).

use std::net::IpAddr;

use async_trait::async_trait;
use gateway_admin::ports::{HostResolver, ResolveError};

/// The system resolver (what a connection made later would use too).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

#[async_trait]
impl HostResolver for SystemResolver {
    async fn resolve(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, ResolveError> {
        let addresses = tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| ResolveError(format!("name resolution failed: {}", e.kind())))?;
        Ok(addresses.map(|a| a.ip()).collect())
    }
}
