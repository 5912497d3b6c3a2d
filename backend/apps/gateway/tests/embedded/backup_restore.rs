//! `switchboard backup restore ID --into FILE` on an embedded install: a backup made by the
//! daemon's job (SeaweedFS), restored by the real binary into a new file with the row counts
//! compared and the migrations checked; an existing file is refused without `--yes`.

use std::sync::Arc;

use gateway_admin::audit::{AuditActor, AuditEntry};
use gateway_admin::backup::{BackupSettingsUpdate, BackupStorageSecrets, SecretsChange};
use gateway_admin::backup_daemon::{BackupDaemon, BackupDaemonConfig};
use gateway_admin::ports::UnitOfWork;
use gateway_store::backup::{S3BackupEngine, SqliteSource};
use gateway_store::crypto::Keyring;
use test_support::TestS3;

use super::Install;

#[tokio::test]
async fn backup_restore_recreates_an_embedded_database_in_a_new_file() {
    let install = Install::new().await;
    install.import_account("acct-1");
    install.import_account("acct-2");
    let s3 = TestS3::from_env().expect("the test S3 server");
    let bucket = test_support::s3::unique_bucket();
    s3.create_bucket(&bucket).await.expect("bucket");

    let key = std::fs::read_to_string(install.data_dir().join("master.key")).expect("master key");
    let keyring = Keyring::from_config(key.trim(), &[]).expect("keyring");
    let path = install.data_dir().join("switchboard.sqlite");
    let store = gateway_store::sqlite::open(&path, 2).await.expect("open").with_keyring(keyring);
    let mut tx = store.begin().await.expect("begin");
    tx.update_backup_settings(&BackupSettingsUpdate {
        enabled: true,
        endpoint: s3.endpoint.clone(),
        region: "us-east-1".into(),
        bucket,
        path_style: true,
        prefix: "sb".into(),
        credentials: SecretsChange::Replace(BackupStorageSecrets::new(s3.access_key.clone(), s3.secret_key.clone())),
        schedule_cron: None,
        retention_count: None,
        retention_days: None,
    })
    .await
    .expect("settings");
    let actor = AuditActor { user_id: None, name: "test".into() };
    tx.commit(AuditEntry::new(actor, "backup_settings.update", "backup_settings", None, serde_json::json!({})))
        .await
        .expect("commit");
    let engine = S3BackupEngine::sqlite(SqliteSource::new(store.reader().clone(), install.root.join("staging")));
    let daemon = BackupDaemon::new(Arc::new(store.clone()), Arc::new(engine), BackupDaemonConfig::default());
    daemon.enqueue_manual(None, time::OffsetDateTime::now_utc()).await.expect("queued");
    let done = daemon.run_queued(time::OffsetDateTime::now_utc()).await.expect("ran").expect("claimed");
    assert!(done.is_verified(), "{done:?}");
    store.close().await;

    let destination = install.root.join("restored.sqlite");
    let into = destination.to_str().expect("utf-8");
    let id = done.id.to_string();
    let output = install.run(&["backup", "restore", &id, "--into", into], None, &[]);
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("row counts match the dump; migrations verified"), "{stdout}");
    let restored = sqlx::sqlite::SqlitePoolOptions::new()
        .connect_with(sqlx::sqlite::SqliteConnectOptions::new().filename(&destination).read_only(true))
        .await
        .expect("restored file opens");
    let accounts: i64 =
        sqlx::query_scalar("SELECT count(*) FROM provider_accounts").fetch_one(&restored).await.expect("count");
    assert_eq!(accounts, 2);
    restored.close().await;

    let again = install.run(&["backup", "restore", &id, "--into", into], None, &[]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not_empty"), "{again:?}");
}
