//! The egress route of one call: the account's proxy from the snapshot (its own or its group's,
//! decision 0241), parsed for the shared transport. A proxy that cannot be used fails the
//! attempt as the proxy's fault, with nothing sent (decision 0242).

use gateway_core::domain::SendState;
use gateway_core::provider::{AttemptFailure, FailureClass};
use gateway_core::snapshot::AccountEntry;
use gateway_transport::ProxyUrl;

/// `None`: the account goes out directly.
pub fn proxy_of(account: &AccountEntry) -> Result<Option<ProxyUrl>, AttemptFailure> {
    let Some(proxy) = &account.egress_proxy else { return Ok(None) };
    let unusable =
        || AttemptFailure::new(FailureClass::ProxyFailed, SendState::NotSent, "the egress proxy is not usable");
    let url = proxy.expose_url().ok_or_else(unusable)?;
    ProxyUrl::parse(url).map(Some).map_err(|_| unusable())
}
