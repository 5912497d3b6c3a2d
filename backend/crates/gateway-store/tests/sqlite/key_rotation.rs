use gateway_admin::admin_user::{NewAdminUser, TotpChange, TotpSecret};
use gateway_admin::alert_settings::AlertWebhookWrite;
use gateway_admin::backup::{BackupSettingsUpdate, BackupStorageSecrets, SecretsChange};
use gateway_admin::ports::{AdminUsers, AlertSettings, BackupJobs, UnitOfWork};
use gateway_core::domain::{CredentialSlot, EgressProxy};
use gateway_core::ports::{CredentialStore, SnapshotSource};
use gateway_store::crypto::{Keyring, MasterKey};
use gateway_store::postgres::{ResealCounts, SealedKind, SecretsReseal};
use gateway_store::sqlite::SqliteStore;
use secrecy::{ExposeSecret, SecretString};

use crate::sqlite::test_store::SqliteTestStore;
use crate::storage_contract::fixtures::{audit, import};

async fn reopen(t: &SqliteTestStore, keyring: Keyring) -> anyhow::Result<SqliteStore> {
    Ok(gateway_store::sqlite::open(&t.path(), 1).await?.with_keyring(keyring))
}

#[tokio::test]
async fn rotation_reseals_every_kind_and_changes_no_fact() -> anyhow::Result<()> {
    let t = SqliteTestStore::new().await?;
    let account = import(&t.store, "acct-1", "tok-rotate").await?;
    let mut tx = t.store.begin().await?;
    let admin = tx.create_admin_user(&NewAdminUser { username: "admin".into(), password_hash: None }).await?;
    tx.set_admin_totp(admin, TotpChange::Pending(&TotpSecret::new(vec![7; 20]))).await?;
    tx.update_backup_settings(&BackupSettingsUpdate {
        enabled: true,
        endpoint: "http://127.0.0.1:9000".to_owned(),
        region: "auto".to_owned(),
        bucket: "b".to_owned(),
        path_style: true,
        prefix: "p/".to_owned(),
        credentials: SecretsChange::Replace(BackupStorageSecrets::new("AKID".into(), "s3-secret".into())),
        schedule_cron: Some("0 3 * * *".to_owned()),
        retention_count: Some(7),
        retention_days: None,
    })
    .await?;
    let proxy = EgressProxy::new("http://10.0.0.1:3128".to_owned(), "http://u:proxy-pw@10.0.0.1:3128".to_owned());
    let group = tx.create_group(&crate::storage_contract::fixtures::group("proxied")).await?;
    tx.set_account_egress_proxy(account.account_id, Some(&proxy)).await?;
    tx.set_group_egress_proxy(group, Some(&proxy)).await?;
    let webhook = tx
        .create_alert_webhook(&AlertWebhookWrite {
            name: "ops".to_owned(),
            url: "https://hooks.example.com/a".to_owned(),
            kinds: vec![],
            enabled: true,
            secret: Some(SecretString::from("whsec-0123456789abcdef")),
        })
        .await?;
    tx.commit(audit("backup_settings.update", "backup_settings")).await?;
    let revision = t.store.current_config_revision().await?;

    let new_config = MasterKey::generate("k2")?.to_config_value().expose_secret().to_owned();
    let rotated = reopen(&t, Keyring::from_config(&new_config, std::slice::from_ref(&t.key_config))?).await?;
    assert!(matches!(rotated.read_credential(account.account_id).await?.slot, CredentialSlot::Available(_)));
    let report = rotated.reseal_secrets(1).await?;
    for kind in SealedKind::ALL {
        assert_eq!(
            report.counts(kind),
            ResealCounts { resealed: 1, unreadable: 0, skipped: 0, remaining: 0 },
            "{kind:?}"
        );
    }
    let again = rotated.reseal_secrets(1).await?;
    assert!(SealedKind::ALL.iter().all(|k| again.counts(*k) == ResealCounts::default()), "a second run reseals 0");

    let only_new = reopen(&t, Keyring::from_config(&new_config, &[])?).await?;
    match only_new.read_credential(account.account_id).await?.slot {
        CredentialSlot::Available(doc) => assert!(doc.expose_json().contains("tok-rotate")),
        other => panic!("expected the credential to open: {other:?}"),
    }
    assert_eq!(only_new.read_backup_secrets().await?.expect("stored").secret_access_key.expose_secret(), "s3-secret");
    let facts = only_new.load_snapshot_facts().await?;
    assert_eq!(facts.accounts[0].egress_proxy, Some(proxy.clone()), "the account proxy opens under the new key alone");
    assert_eq!(facts.groups[0].egress_proxy, Some(proxy), "so does the group's");
    assert_eq!(only_new.admin_totp_secret(admin).await?.map(|s| s.expose().to_vec()), Some(vec![7; 20]));
    let target = only_new.alert_webhook_target(webhook).await?;
    assert_eq!(target.secret.expose_secret(), "whsec-0123456789abcdef");
    let only_old = reopen(&t, Keyring::from_config(&t.key_config, &[])?).await?;
    assert!(matches!(only_old.read_credential(account.account_id).await?.slot, CredentialSlot::Unreadable { .. }));

    assert_eq!(only_new.load_account(account.account_id).await?.credential_revision, account.credential_revision);
    assert_eq!(only_new.current_config_revision().await?, revision, "not a configuration change");
    for store in [rotated, only_new, only_old] {
        store.close().await;
    }
    t.finish().await
}
