//! Egress proxies of accounts and groups (decision 0241): set, read back through the
//! directories and the snapshot, cleared; sealed under the row's context, so another key reads
//! them as unreadable, never as missing.

use gateway_admin::ports::{AccountDirectory, GroupDirectory, UnitOfWork};
use gateway_core::domain::{AccountId, EgressProxy};
use gateway_core::ports::{SnapshotSource, StorageErrorKind};
use gateway_store::crypto::{Keyring, MasterKey};

use crate::storage_contract::fixtures::{Harness, audit, group, import};

fn proxy(port: u16) -> EgressProxy {
    EgressProxy::new(format!("socks5://10.0.0.1:{port}"), format!("socks5://bob:pw-{port}@10.0.0.1:{port}"))
}

pub async fn egress_proxies_round_trip_sealed_and_clear(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let account = import(&store, "acct-1", "tok").await?.account_id;
    let mut tx = store.begin().await?;
    let g = tx.create_group(&group("proxied")).await?;
    tx.replace_group_members(g, &[account]).await?;
    tx.set_account_egress_proxy(account, Some(&proxy(1080))).await?;
    tx.set_group_egress_proxy(g, Some(&proxy(1081))).await?;
    tx.commit(audit("account.egress_proxy", "account")).await?;

    assert_eq!(store.get_account(account).await?.egress_proxy, Some(proxy(1080)));
    assert_eq!(store.get_group(g).await?.egress_proxy, Some(proxy(1081)));
    let facts = store.load_snapshot_facts().await?;
    assert_eq!(facts.accounts[0].egress_proxy, Some(proxy(1080)), "the snapshot opens it");
    assert_eq!(facts.groups[0].egress_proxy, Some(proxy(1081)));

    // Another key: the proxy is still there, unreadable (the account is then unschedulable).
    let impostor = h.reopen(Some(Keyring::new(MasterKey::generate("k1")?, vec![])?)).await?;
    let seen = impostor.get_account(account).await?.egress_proxy.expect("still configured");
    assert_eq!((seen.display(), seen.is_readable()), ("socks5://10.0.0.1:1080", false));
    let seen = impostor.get_group(g).await?.egress_proxy.expect("still configured");
    assert!(!seen.is_readable());
    h.close(impostor).await;

    // Clearing one leaves the other; a missing row is NotFound.
    let mut tx = store.begin().await?;
    tx.set_account_egress_proxy(account, None).await?;
    tx.commit(audit("account.egress_proxy", "account")).await?;
    assert_eq!(store.get_account(account).await?.egress_proxy, None);
    assert_eq!(store.get_group(g).await?.egress_proxy, Some(proxy(1081)));
    let mut tx = store.begin().await?;
    let missing = tx.set_account_egress_proxy(AccountId(999_999), Some(&proxy(1))).await.expect_err("no such account");
    assert_eq!(missing.kind(), StorageErrorKind::NotFound);
    drop(tx);
    // An unreadable proxy is never written back.
    let mut tx = store.begin().await?;
    let unreadable = EgressProxy::unreadable("http://10.0.0.1:3128".to_owned());
    assert!(tx.set_group_egress_proxy(g, Some(&unreadable)).await.is_err());
    drop(tx);
    assert_eq!(store.get_group(g).await?.egress_proxy, Some(proxy(1081)));
    h.finish().await
}
