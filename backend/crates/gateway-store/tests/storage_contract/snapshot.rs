//! [`SnapshotSource`]: the routing configuration and the revision it belongs to.

use gateway_admin::ports::{ClientKeyChanges, NewClientKey, UnitOfWork};
use gateway_core::domain::{ClientKeyLimits, ClientKeySecret, CredentialSlot, KeyScope, ServiceTierPolicy};
use gateway_core::ports::SnapshotSource;

use crate::storage_contract::fixtures::{Harness, audit, group, import};

pub async fn the_snapshot_holds_accounts_groups_keys_and_its_revision(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let a1 = import(&store, "acct-1", "tok-1").await?.account_id;
    let a2 = import(&store, "acct-2", "tok-2").await?.account_id;
    let secret = ClientKeySecret::new("sk-sb-snapshot-0123456789".to_owned());
    let mut tx = store.begin().await?;
    let g = tx.create_group(&group("g")).await?;
    tx.replace_group_members(g, &[a2]).await?;
    let key = tx
        .create_client_key(&NewClientKey {
            key_hash: secret.hash(),
            key_prefix: secret.display_prefix(),
            changes: ClientKeyChanges {
                name: "k".into(),
                enabled: true,
                expires_at: None,
                limits: ClientKeyLimits { requests_per_minute: Some(60), ..ClientKeyLimits::default() },
                allowed_models: Some(vec!["gpt-5".into()]),
                service_tier_policy: ServiceTierPolicy::ForcePriority,
            },
        })
        .await?;
    tx.replace_client_key_groups(key, &[g]).await?;
    let receipt = tx.commit(audit("client_key.create", "client_key")).await?;

    let facts = store.load_snapshot_facts().await?;
    assert_eq!(facts.config_revision, receipt.config_revision);
    assert_eq!(store.current_config_revision().await?, receipt.config_revision);
    assert_eq!(facts.accounts.iter().map(|a| a.id).collect::<Vec<_>>(), [a1, a2]);
    assert!(facts.accounts.iter().all(|a| matches!(a.credential, CredentialSlot::Available(_))));
    assert_eq!(facts.groups.len(), 1);
    assert_eq!(facts.groups[0].account_ids, [a2]);
    let k = &facts.client_keys[0];
    assert_eq!(k.key_hash, secret.hash());
    assert_eq!(k.key_prefix, secret.display_prefix());
    assert_eq!(k.scope, KeyScope::Groups(vec![g]));
    assert_eq!(k.limits.requests_per_minute, Some(60));
    assert_eq!(k.allowed_models.as_deref(), Some(&["gpt-5".to_owned()][..]));
    assert_eq!(k.service_tier_policy, ServiceTierPolicy::ForcePriority);
    assert_eq!(facts.settings, gateway_core::domain::RuntimeSettings::default());
    assert_eq!(store.load_account(a1).await?.external_account_id, "acct-1");
    h.finish().await
}
