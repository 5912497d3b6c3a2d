//! Egress proxies of accounts and groups (issue 18, decisions 0241 and 0243): set or clear,
//! one unit of work with one audit row that names the proxy without its user info.
//!
//! A proxy URL is `http://[user:pass@]host[:port]` (HTTP CONNECT, default port 80) or
//! `socks5://[user:pass@]host[:port]` (SOCKS5, `socks5h` the same, default port 1080), no path,
//! query or fragment. Its host passes the admin SSRF guard's address policy
//! ([`UrlGuard::check_host`]); plain `http` is the proxy protocol itself, the upstream's TLS runs
//! inside the tunnel. The URL is a secret: messages never echo it, the store seals it.
//!
//! [`applying`] resolves the proxy that applies to an account; [`check`] probes a proxy.

pub mod applying;
pub mod check;

use serde_json::json;
use url::Url;

use gateway_core::domain::{AccountId, EgressProxy, GroupId};

use crate::audit::{AuditActor, AuditEntry};
use crate::error::AdminError;
use crate::ports::{AccountDirectory, GroupDirectory, UnitOfWork};
use crate::url_guard::UrlGuard;

/// Longest proxy URL taken.
pub const MAX_PROXY_URL: usize = 2048;

/// Whose proxy an edit changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProxyOwner {
    Account(AccountId),
    Group(GroupId),
}

fn invalid(message: &str) -> AdminError {
    AdminError::invalid("url", message)
}

/// Parses `raw` into a proxy (no network); the guard's address check is [`check_proxy`].
pub fn parse_proxy(raw: &str) -> Result<EgressProxy, AdminError> {
    let raw = raw.trim();
    if raw.is_empty() || raw.len() > MAX_PROXY_URL {
        return Err(invalid("must be 1 to 2048 characters"));
    }
    let url = Url::parse(raw).map_err(|_| invalid("is not a valid URL"))?;
    let (scheme, default_port) = match url.scheme() {
        "http" => ("http", 80),
        "socks5" | "socks5h" => ("socks5", 1080),
        _ => return Err(invalid("must be an http:// (HTTP CONNECT) or socks5:// proxy URL")),
    };
    let host = url.host_str().filter(|h| !h.is_empty()).ok_or_else(|| invalid("must name a host"))?;
    if !(url.path().is_empty() || url.path() == "/") || url.query().is_some() || url.fragment().is_some() {
        return Err(invalid("must not have a path, query or fragment"));
    }
    if url.username().len() > 255 || url.password().is_some_and(|p| p.len() > 255) {
        return Err(invalid("user name and password must be at most 255 bytes each"));
    }
    if url.username().is_empty() && url.password().is_some() {
        return Err(invalid("a password needs a user name"));
    }
    let port = url.port().unwrap_or(default_port);
    Ok(EgressProxy::new(format!("{scheme}://{host}:{port}"), raw.to_owned()))
}

/// [`parse_proxy`], then the SSRF guard's address policy on its host.
pub async fn check_proxy(guard: &UrlGuard, raw: &str) -> Result<EgressProxy, AdminError> {
    let proxy = parse_proxy(raw)?;
    let url = Url::parse(raw.trim()).map_err(|_| invalid("is not a valid URL"))?;
    let host = url.host().ok_or_else(|| invalid("must name a host"))?;
    let port = url.port().unwrap_or(if url.scheme() == "http" { 80 } else { 1080 });
    guard.check_host(host, port).await.map_err(|refusal| invalid(&format!("{refusal}")))?;
    Ok(proxy)
}

/// Sets (`raw: Some`) or clears (`None`) the owner's proxy; returns what is stored now.
pub async fn set_egress_proxy(
    uow: &dyn UnitOfWork,
    accounts: &dyn AccountDirectory,
    groups: &dyn GroupDirectory,
    guard: &UrlGuard,
    actor: AuditActor,
    owner: ProxyOwner,
    raw: Option<&str>,
) -> Result<Option<EgressProxy>, AdminError> {
    let proxy = match raw {
        Some(raw) => Some(check_proxy(guard, raw).await?),
        None => None,
    };
    let before = match owner {
        ProxyOwner::Account(id) => accounts.get_account(id).await?.egress_proxy,
        ProxyOwner::Group(id) => groups.get_group(id).await?.egress_proxy,
    };
    let shown = |p: &Option<EgressProxy>| p.as_ref().map(|p| p.display().to_owned());
    let details = json!({
        "egress_proxy": [shown(&before), shown(&proxy)],
        "with_credentials": proxy.as_ref().is_some_and(EgressProxy::has_credentials),
    });
    let mut tx = uow.begin().await?;
    let (action, target, id) = match owner {
        ProxyOwner::Account(id) => {
            tx.set_account_egress_proxy(id, proxy.as_ref()).await?;
            ("account.egress_proxy", "account", id.0)
        }
        ProxyOwner::Group(id) => {
            tx.set_group_egress_proxy(id, proxy.as_ref()).await?;
            ("group.egress_proxy", "group", id.0)
        }
    };
    tx.commit(AuditEntry::new(actor, action, target, Some(id.to_string()), details)).await?;
    Ok(proxy)
}
