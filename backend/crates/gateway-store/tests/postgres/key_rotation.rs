use gateway_admin::backup::{BackupSettingsUpdate, BackupStorageSecrets, SecretsChange};
use gateway_admin::ports::{BackupJobs, UnitOfWork};
use gateway_core::domain::CredentialSlot;
use gateway_core::ports::CredentialStore;
use gateway_store::crypto::{Keyring, MasterKey};
use secrecy::ExposeSecret;

use crate::postgres::test_store::{TestStore, audit};

#[tokio::test]
async fn rotation_reencrypts_under_the_new_key_and_retired_keys_still_open() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let account = t.import("acct-1", "tok-rotate").await?.account_id;
    let mut tx = t.store.begin().await?;
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
    tx.commit(audit("backup_settings.update", "backup_settings")).await?;

    let new_key = MasterKey::generate("k2")?;
    let new_config = new_key.to_config_value().expose_secret().to_owned();
    let rotated = t.reopen(Keyring::from_config(&new_config, std::slice::from_ref(&t.key_config))?).await?;

    // Before re-encryption the retired key still opens everything.
    assert!(matches!(rotated.read_credential(account).await?.slot, CredentialSlot::Available(_)));
    let report = rotated.reencrypt_secrets(100).await?;
    assert_eq!((report.reencrypted, report.unreadable, report.remaining), (2, 0, 0));
    let ids: Vec<String> = sqlx::query_scalar(
        "SELECT credential_key_id FROM provider_accounts UNION ALL SELECT credentials_key_id FROM backup_settings",
    )
    .fetch_all(&t.raw)
    .await?;
    assert_eq!(ids, ["k2", "k2"]);

    // The retired key can now be dropped.
    let only_new = t.reopen(Keyring::from_config(&new_config, &[])?).await?;
    match only_new.read_credential(account).await?.slot {
        CredentialSlot::Available(doc) => assert!(doc.expose_json().contains("tok-rotate")),
        other => panic!("expected the credential to open: {other:?}"),
    }
    let secrets = only_new.read_backup_secrets().await?.expect("stored");
    assert_eq!(secrets.secret_access_key.expose_secret(), "s3-secret");
    // …and the old key alone no longer opens the rows.
    let only_old = t.reopen(Keyring::from_config(&t.key_config, &[])?).await?;
    assert!(matches!(only_old.read_credential(account).await?.slot, CredentialSlot::Unreadable { .. }));
    for store in [rotated, only_new, only_old] {
        store.close().await;
    }
    t.finish().await
}
