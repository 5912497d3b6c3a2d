//! The egress route of one call: the account's proxy from the snapshot (its own or its group's,
//! decision 0241), parsed for the shared transport. Every call of an account takes it:
//! inference, the token refresh, usage probes and the catalog sync. A proxy that cannot be used
//! fails the call as the proxy's fault, with nothing sent (decision 0242): never directly.

use gateway_core::domain::{EgressProxy, SendState};
use gateway_core::fault::Fault;
use gateway_core::provider::AttemptFailure;
use gateway_core::snapshot::AccountEntry;
use gateway_transport::ProxyUrl;

/// What a call says when the account's proxy cannot be used.
pub const UNUSABLE: &str = "the egress proxy is not usable";

/// `None`: the account goes out directly.
pub fn proxy_of(account: &AccountEntry) -> Result<Option<ProxyUrl>, AttemptFailure> {
    parse(account.egress_proxy.as_ref())
        .map_err(|_| AttemptFailure::new(Fault::EgressProxyFailed, SendState::NotSent, UNUSABLE))
}

/// A stored proxy for the transport; `Err` when it does not open or parse.
pub fn parse(proxy: Option<&EgressProxy>) -> Result<Option<ProxyUrl>, Unusable> {
    let Some(proxy) = proxy else { return Ok(None) };
    let url = proxy.expose_url().ok_or(Unusable)?;
    ProxyUrl::parse(url).map(Some).map_err(|_| Unusable)
}

/// The account's proxy is stored but cannot be used (sealed under an unknown key, or invalid).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unusable;
