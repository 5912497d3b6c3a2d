//! `switchboard proxy check URL [--provider openai|xai]` and `switchboard account proxy check
//! ID`: the admin API's egress proxy probe (decision 0246) from the command line. A tunnel
//! through the proxy to the provider's configured upstream origin and the TLS handshake; no
//! request, no token. One line per phase on standard output, then `reachable` or
//! `unreachable …`; the exit code is 1 when unreachable. The URL is a secret: `-` reads it from
//! standard input, and it is never printed with its user info.

use std::sync::Arc;

use gateway_admin::egress_proxies::applying::ProxySource;
use gateway_admin::egress_proxies::check::{ProxyCheck, check_account_proxy, check_proxy_url};
use gateway_admin::url_guard::{UrlGuard, UrlPolicy};
use gateway_core::domain::{AccountId, ProviderKind};
use gateway_store::dns::SystemResolver;

use super::proxies::first_stdin_line;
use super::{failed, open_facts};
use crate::bootstrap::{StartError, TransportProxyProbe, default_proxy};
use crate::config::Config;

fn provider_of(name: &str) -> Result<ProviderKind, StartError> {
    match name {
        "openai" => Ok(ProviderKind::Openai),
        "xai" => Ok(ProviderKind::Xai),
        other => Err(failed(format!("unknown provider `{other}` (openai or xai)"))),
    }
}

/// Probes `url` (`-`: the first line of standard input) towards `provider`'s upstream origin.
pub async fn check_url(config: Config, url: String, provider: String) -> Result<(), StartError> {
    let url = if url == "-" { first_stdin_line()? } else { url };
    let provider = provider_of(&provider)?;
    let probe = TransportProxyProbe::new(&config)?;
    let guard = UrlGuard::new(Arc::new(SystemResolver), UrlPolicy { allow_private: config.admin.allow_private_urls });
    let check = check_proxy_url(&guard, &probe, provider, &url).await.map_err(failed)?;
    print_check(&check)
}

/// Probes the proxy that applies to account `id` (its own, its group's or the default).
pub async fn check_account(mut config: Config, id: i64) -> Result<(), StartError> {
    let probe = TransportProxyProbe::new(&config)?;
    let default = default_proxy(&config)?;
    let store = open_facts(&mut config).await?;
    let checked = check_account_proxy(store.as_ref(), store.as_ref(), default.as_ref(), &probe, AccountId(id)).await;
    store.close().await;
    print_check(&checked.map_err(failed)?)
}

fn print_check(check: &ProxyCheck) -> Result<(), StartError> {
    let source = match check.source {
        None => String::new(),
        Some(ProxySource::Group(id)) => format!(" (group {})", id.0),
        Some(other) => format!(" ({})", other.as_str()),
    };
    let credentials = if check.has_credentials { " with credentials" } else { "" };
    let outcome = &check.outcome;
    println!("proxy {}{credentials}{source} -> {}", check.proxy, outcome.origin);
    for phase in &outcome.phases {
        println!("{} {} {} ms", phase.phase, if phase.ok { "ok" } else { "failed" }, phase.millis);
    }
    if outcome.reachable {
        println!("reachable");
        return Ok(());
    }
    let phase = outcome.failed_phase.unwrap_or("proxy_connect");
    let message = outcome.message.as_deref().unwrap_or("no detail");
    println!("unreachable: {phase} failed: {message}");
    Err(failed(format!("the egress proxy is unreachable ({phase} failed)")))
}
