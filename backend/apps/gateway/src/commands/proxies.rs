//! `switchboard account proxy set|clear ID` and `switchboard group proxy set|clear ID`: the
//! admin API's egress-proxy use case (`gateway_admin::egress_proxies`: the same URL rules, the
//! same SSRF address policy, one audited unit of work) from the command line. The URL is a
//! secret: `-` reads it from standard input (keeping it out of the process list and the shell
//! history), and it is never printed back with its user info.

use std::io::BufRead;
use std::sync::Arc;

use crate::config::Config;
use gateway_admin::egress_proxies::{ProxyOwner, set_egress_proxy};
use gateway_admin::url_guard::{UrlGuard, UrlPolicy};
use gateway_core::domain::{AccountId, GroupId};
use gateway_store::dns::SystemResolver;

use super::{actor, failed, open_facts};
use crate::bootstrap::StartError;

/// Whose proxy a command changes, by the id `account list` / the admin API shows.
#[derive(Debug, Clone, Copy)]
pub enum Owner {
    Account(i64),
    Group(i64),
}

/// Sets (`url: Some`, `-` = the first line of standard input) or clears the owner's proxy.
pub async fn set(mut config: Config, owner: Owner, url: Option<String>) -> Result<(), StartError> {
    let url = match url.as_deref() {
        Some("-") => Some(first_stdin_line()?),
        _ => url,
    };
    let store = open_facts(&mut config).await?;
    let guard = UrlGuard::new(Arc::new(SystemResolver), UrlPolicy { allow_private: config.admin.allow_private_urls });
    let (owner, shown) = match owner {
        Owner::Account(id) => (ProxyOwner::Account(AccountId(id)), format!("account {id}")),
        Owner::Group(id) => (ProxyOwner::Group(GroupId(id)), format!("group {id}")),
    };
    let stored =
        set_egress_proxy(store.as_ref(), store.as_ref(), store.as_ref(), &guard, actor(), owner, url.as_deref()).await;
    store.close().await;
    match stored.map_err(failed)? {
        Some(proxy) => eprintln!(
            "{shown}: egress proxy {}{}",
            proxy.display(),
            if proxy.has_credentials() { " (with credentials)" } else { "" }
        ),
        None => eprintln!("{shown}: egress proxy cleared"),
    }
    Ok(())
}

pub(super) fn first_stdin_line() -> Result<String, StartError> {
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).map_err(failed)?;
    let line = line.trim().to_owned();
    if line.is_empty() {
        return Err(failed("no proxy URL on standard input"));
    }
    Ok(line)
}
