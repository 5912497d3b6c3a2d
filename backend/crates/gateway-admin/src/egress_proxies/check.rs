//! The egress proxy health probe (issue 18, decision 0246): a URL not stored yet (after the same
//! checks as setting it: URL rules and the SSRF guard's address policy), or the proxy that
//! applies to an account (its own, its group's, or the default). The answer names the proxy
//! without its user info and never carries the URL as given.

use gateway_core::domain::{AccountId, EgressProxy, ProviderKind};

use super::applying::{ProxySource, applying_proxy};
use super::check_proxy;
use crate::error::AdminError;
use crate::ports::{AccountDirectory, GroupDirectory, ProxyProbe, ProxyProbeOutcome};
use crate::url_guard::UrlGuard;

/// A probe's answer about one proxy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyCheck {
    /// `scheme://host:port`, without user info.
    pub proxy: String,
    pub has_credentials: bool,
    /// `None` for a URL probed before it is stored.
    pub source: Option<ProxySource>,
    pub provider: ProviderKind,
    pub outcome: ProxyProbeOutcome,
}

fn report(
    proxy: &EgressProxy,
    source: Option<ProxySource>,
    provider: ProviderKind,
    outcome: ProxyProbeOutcome,
) -> ProxyCheck {
    ProxyCheck {
        proxy: proxy.display().to_owned(),
        has_credentials: proxy.has_credentials(),
        source,
        provider,
        outcome,
    }
}

/// Probes `raw` (not stored) towards `provider`'s upstream origin.
pub async fn check_proxy_url(
    guard: &UrlGuard,
    probe: &dyn ProxyProbe,
    provider: ProviderKind,
    raw: &str,
) -> Result<ProxyCheck, AdminError> {
    let proxy = check_proxy(guard, raw).await?;
    let outcome = probe.probe(provider, &proxy).await;
    Ok(report(&proxy, None, provider, outcome))
}

/// Probes the proxy that applies to account `id` towards its provider's upstream origin. An
/// account without one is a conflict: there is nothing to probe (it goes out directly).
pub async fn check_account_proxy(
    accounts: &dyn AccountDirectory,
    groups: &dyn GroupDirectory,
    default_proxy: Option<&EgressProxy>,
    probe: &dyn ProxyProbe,
    id: AccountId,
) -> Result<ProxyCheck, AdminError> {
    let provider = accounts.get_account(id).await?.provider;
    let Some(applied) = applying_proxy(accounts, groups, default_proxy, id).await? else {
        return Err(AdminError::Conflict(format!("no egress proxy applies to account {}: it goes out directly", id.0)));
    };
    let outcome = probe.probe(provider, &applied.proxy).await;
    Ok(report(&applied.proxy, Some(applied.source), provider, outcome))
}
