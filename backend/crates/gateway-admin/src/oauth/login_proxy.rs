//! The egress proxy of a login (issue 18, decision 0247). A new login goes through the proxy it
//! names (a URL, checked like setting one: URL rules and the SSRF guard), or the proxy of the
//! group it names, else the default proxy (`providers.egress_proxy`), else directly. A
//! re-authorisation goes through the proxy that applies to its account (own, group, default)
//! and names none itself. Every call of the flow uses it; the choice is kept, sealed, in the
//! pending flow. An account a login creates keeps a named proxy (URL or group's) as its own.

use std::sync::Arc;

use gateway_core::domain::{AccountId, EgressProxy, GroupId};

use super::error::OAuthError;
use crate::egress_proxies::applying::applying_proxy;
use crate::egress_proxies::check_proxy;
use crate::error::AdminError;
use crate::ports::{AccountDirectory, GroupDirectory};
use crate::url_guard::UrlGuard;

/// Which proxy a login asks for. `Debug` never shows a named URL.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum LoginProxy {
    /// The default proxy for a new account; the account's own route for a re-authorisation.
    #[default]
    Default,
    /// This proxy URL (a secret: never shown or logged).
    Url(String),
    /// The proxy of this group.
    Group(GroupId),
}

impl std::fmt::Debug for LoginProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Default => f.write_str("LoginProxy::Default"),
            Self::Url(_) => f.write_str("LoginProxy::Url([REDACTED])"),
            Self::Group(id) => write!(f, "LoginProxy::Group({})", id.0),
        }
    }
}

/// The proxy a flow goes through, and whether the account it creates keeps it as its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowProxy {
    pub proxy: EgressProxy,
    pub keep: bool,
}

/// What choosing a login's proxy reads: groups, the SSRF guard, the default proxy.
#[derive(Clone)]
pub struct LoginEgress {
    pub groups: Arc<dyn GroupDirectory>,
    pub guard: Arc<UrlGuard>,
    pub default_proxy: Option<EgressProxy>,
}

fn invalid(field: &'static str, message: impl Into<String>) -> OAuthError {
    OAuthError::InvalidProxy { field, message: message.into() }
}

fn from_admin(field: &'static str, error: AdminError) -> OAuthError {
    match error {
        AdminError::Invalid { message, .. } => invalid(field, message),
        AdminError::NotFound(_) => invalid(field, "no such group"),
        other => invalid(field, other.to_string()),
    }
}

/// The proxy of a login, or `None` (direct).
pub async fn choose(
    egress: Option<&LoginEgress>,
    accounts: &dyn AccountDirectory,
    target: Option<AccountId>,
    choice: &LoginProxy,
) -> Result<Option<FlowProxy>, OAuthError> {
    let chosen = match (target, choice) {
        (Some(_), LoginProxy::Url(_)) => return Err(invalid("egressProxy", reauthorize_names_none())),
        (Some(_), LoginProxy::Group(_)) => return Err(invalid("groupId", reauthorize_names_none())),
        (Some(id), LoginProxy::Default) => {
            let Some(egress) = egress else { return own_proxy(accounts, id).await };
            let default = egress.default_proxy.as_ref();
            applying_proxy(accounts, egress.groups.as_ref(), default, id)
                .await
                .map_err(|e| invalid("accountId", e.to_string()))?
                .map(|applied| FlowProxy { proxy: applied.proxy, keep: false })
        }
        (None, LoginProxy::Default) => {
            egress.and_then(|e| e.default_proxy.clone()).map(|proxy| FlowProxy { proxy, keep: false })
        }
        (None, LoginProxy::Url(raw)) => {
            let egress = egress.ok_or_else(|| invalid("egressProxy", not_configured()))?;
            let proxy = check_proxy(&egress.guard, raw).await.map_err(|e| from_admin("egressProxy", e))?;
            Some(FlowProxy { proxy, keep: true })
        }
        (None, LoginProxy::Group(id)) => {
            let egress = egress.ok_or_else(|| invalid("groupId", not_configured()))?;
            let group = egress.groups.get_group(*id).await.map_err(|e| from_admin("groupId", e.into()))?;
            let proxy = group.egress_proxy.ok_or_else(|| invalid("groupId", "the group has no egress proxy"))?;
            Some(FlowProxy { proxy, keep: true })
        }
    };
    if chosen.as_ref().is_some_and(|c| !c.proxy.is_readable()) {
        return Err(invalid("egressProxy", "the egress proxy that applies cannot be opened with the configured keys"));
    }
    Ok(chosen)
}

async fn own_proxy(accounts: &dyn AccountDirectory, id: AccountId) -> Result<Option<FlowProxy>, OAuthError> {
    let account = accounts.get_account(id).await.map_err(|_| OAuthError::AccountNotFound(id.0))?;
    Ok(account.egress_proxy.map(|proxy| FlowProxy { proxy, keep: false }))
}

fn reauthorize_names_none() -> &'static str {
    "a re-authorisation goes through the proxy that applies to its account; it names none"
}

fn not_configured() -> &'static str {
    "logins cannot name an egress proxy here"
}
