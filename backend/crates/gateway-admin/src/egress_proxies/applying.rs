//! Which egress proxy applies to an account, read from storage the way the routing snapshot
//! resolves it (decision 0241): its own; else the proxy of the lowest-id group it belongs to
//! that has one; else the default proxy (`providers.egress_proxy`, decision 0245); else none.

use gateway_core::domain::{AccountId, EgressProxy, GroupId};

use crate::error::AdminError;
use crate::ports::{AccountDirectory, GroupDirectory};

/// Where an applying proxy comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProxySource {
    Account,
    Group(GroupId),
    Default,
}

impl ProxySource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Account => "account",
            Self::Group(_) => "group",
            Self::Default => "default",
        }
    }
}

/// A proxy and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedProxy {
    pub proxy: EgressProxy,
    pub source: ProxySource,
}

/// The proxy that applies to `id` (`None`: the account goes out directly).
pub async fn applying_proxy(
    accounts: &dyn AccountDirectory,
    groups: &dyn GroupDirectory,
    default_proxy: Option<&EgressProxy>,
    id: AccountId,
) -> Result<Option<AppliedProxy>, AdminError> {
    let account = accounts.get_account(id).await?;
    if let Some(proxy) = account.egress_proxy {
        return Ok(Some(AppliedProxy { proxy, source: ProxySource::Account }));
    }
    if let Some(applied) = group_proxy(groups, accounts.account_groups(id).await?).await? {
        return Ok(Some(applied));
    }
    Ok(default_proxy.map(|proxy| AppliedProxy { proxy: proxy.clone(), source: ProxySource::Default }))
}

/// The proxy of the lowest-id group of `ids` that has one.
pub async fn group_proxy(
    groups: &dyn GroupDirectory,
    mut ids: Vec<GroupId>,
) -> Result<Option<AppliedProxy>, AdminError> {
    ids.sort();
    for id in ids {
        if let Some(proxy) = groups.get_group(id).await?.egress_proxy {
            return Ok(Some(AppliedProxy { proxy, source: ProxySource::Group(id) }));
        }
    }
    Ok(None)
}
