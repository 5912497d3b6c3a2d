use gateway_admin::backup::{BackupSettingsUpdate, BackupStorageSecrets, SecretsChange};
use gateway_admin::ports::{BackupJobs, UnitOfWork};
use gateway_core::domain::CredentialSlot;
use gateway_core::ports::CredentialStore;
use gateway_store::crypto::{Keyring, MasterKey};
use gateway_store::postgres::{ResealCounts, SealedKind, SecretsReseal};
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
    let report = rotated.reseal_secrets(100).await?;
    let credentials = report.counts(SealedKind::Credentials);
    assert_eq!((credentials.resealed, credentials.unreadable, credentials.remaining), (1, 0, 0));
    assert_eq!(report.counts(SealedKind::BackupSecrets).resealed, 1);
    assert_eq!(report.counts(SealedKind::TotpSecrets), ResealCounts::default());
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

/// A row sealed under a key no keyring has (a lost key): its ciphertext cannot be opened.
async fn seal_under_lost_key(t: &TestStore, external_id: &str) -> anyhow::Result<()> {
    let lost = t.reopen(Keyring::new(MasterKey::generate("k-lost")?, Vec::new())?).await?;
    let mut tx = lost.begin().await?;
    tx.import_account(crate::postgres::test_store::account_import(external_id, "tok-lost")).await?;
    tx.commit(audit("account.import", "account")).await?;
    lost.close().await;
    Ok(())
}

#[tokio::test]
async fn a_reseal_is_resumable_in_committed_batches_and_unreadable_rows_do_not_block_it() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    // The lowest id cannot be opened by anyone: it must not stall the batches behind it.
    seal_under_lost_key(&t, "acct-lost").await?;
    for i in 0..5 {
        t.import(&format!("acct-{i}"), &format!("tok-{i}")).await?;
    }
    let facts = "SELECT id, credential_revision, updated_at, enabled, weight FROM provider_accounts ORDER BY id";
    let before: Vec<(i64, i64, time::OffsetDateTime, bool, i16)> = sqlx::query_as(facts).fetch_all(&t.raw).await?;
    let revision: i64 = sqlx::query_scalar("SELECT config_revision FROM runtime_settings").fetch_one(&t.raw).await?;
    let new_config = MasterKey::generate("k2")?.to_config_value().expose_secret().to_owned();
    let keyring = || Keyring::from_config(&new_config, std::slice::from_ref(&t.key_config));

    // An interrupted run: one committed batch of two rows, then the process is gone.
    let interrupted = t.reopen(keyring()?).await?;
    let first = interrupted.reseal_batch(SealedKind::Credentials, 0, 2).await?;
    assert_eq!((first.counts.resealed, first.counts.unreadable), (1, 1), "the lost row is counted, not retried");
    interrupted.close().await;
    let resealed: i64 = sqlx::query_scalar("SELECT count(*) FROM provider_accounts WHERE credential_key_id = 'k2'")
        .fetch_one(&t.raw)
        .await?;
    assert_eq!(resealed, 1, "the batch was committed");

    // A new run finishes the rest, batch by batch, and a third finds nothing to do.
    let resumed = t.reopen(keyring()?).await?;
    let report = resumed.reseal_secrets(1).await?;
    assert_eq!(
        report.counts(SealedKind::Credentials),
        ResealCounts { resealed: 4, unreadable: 1, skipped: 0, remaining: 1 },
        "the lost row stays; everything else is under k2"
    );
    let again = resumed.reseal_secrets(1).await?;
    assert_eq!(
        again.counts(SealedKind::Credentials),
        ResealCounts { resealed: 0, unreadable: 1, skipped: 0, remaining: 1 }
    );

    // Not a credential change: revisions, updated_at, scheduling facts and config_revision stay.
    let after: Vec<(i64, i64, time::OffsetDateTime, bool, i16)> = sqlx::query_as(facts).fetch_all(&t.raw).await?;
    assert_eq!(after, before);
    let revision_after: i64 =
        sqlx::query_scalar("SELECT config_revision FROM runtime_settings").fetch_one(&t.raw).await?;
    assert_eq!(revision_after, revision);
    let only_new = t.reopen(Keyring::from_config(&new_config, &[])?).await?;
    let ids: Vec<i64> = sqlx::query_scalar("SELECT id FROM provider_accounts WHERE external_account_id <> 'acct-lost'")
        .fetch_all(&t.raw)
        .await?;
    for id in ids {
        let slot = only_new.read_credential(gateway_core::domain::AccountId(id)).await?.slot;
        assert!(matches!(slot, CredentialSlot::Available(_)), "account {id} opens with the new key alone");
    }
    for store in [resumed, only_new] {
        store.close().await;
    }
    t.finish().await
}
