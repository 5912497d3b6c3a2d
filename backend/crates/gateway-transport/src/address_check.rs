//! The address policy for egress proxy hosts, applied when connecting (decision 0244): a proxy
//! URL's host passed the SSRF guard when it was saved (decision 0243), but DNS can change, so
//! every address a proxy name resolves to is checked again before a connection is opened to
//! it. The policy itself is the caller's (the gateway passes the admin guard's address rules);
//! the transport only applies it.

use std::net::IpAddr;
use std::sync::Arc;

type Check = dyn Fn(IpAddr) -> Result<(), String> + Send + Sync;

/// Decides whether an address may be connected to; `Err` names the refused class.
#[derive(Clone)]
pub struct AddressCheck(Arc<Check>);

impl AddressCheck {
    pub fn new(check: impl Fn(IpAddr) -> Result<(), String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(check))
    }

    /// Every address allowed (tests, command-line tools that never connect through a proxy).
    pub fn allow_all() -> Self {
        Self::new(|_| Ok(()))
    }

    pub fn check(&self, ip: IpAddr) -> Result<(), String> {
        (self.0)(ip)
    }
}

impl Default for AddressCheck {
    fn default() -> Self {
        Self::allow_all()
    }
}

impl std::fmt::Debug for AddressCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AddressCheck")
    }
}
