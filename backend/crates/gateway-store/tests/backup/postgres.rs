//! PostgreSQL: backup → read back → restore into a scratch database → row counts equal, then
//! the operator's restore into an empty database, and verification noticing a damaged object.

use std::sync::Arc;

use gateway_admin::backup::BackupState;
use gateway_admin::backup_daemon::{BackupDaemon, BackupDaemonConfig};
use gateway_admin::ports::{AccountImport, UnitOfWork};
use gateway_store::backup::{PostgresSource, RestoreMode, S3BackupEngine};
use gateway_store::crypto::{Keyring, MasterKey};
use gateway_store::postgres::PgStore;
use secrecy::ExposeSecret;
use sqlx::{Connection, Executor, PgConnection};
use time::OffsetDateTime;

use super::support::{Bucket, FreshDatabase};
use crate::postgres::test_store::{account_import, audit};

pub async fn migrated_store(url: &str) -> anyhow::Result<Arc<PgStore>> {
    let key = MasterKey::generate("k1")?;
    let keyring = Keyring::from_config(key.to_config_value().expose_secret(), &[])?;
    let store = gateway_store::postgres::connect(url, 4).await?.with_keyring(keyring);
    store.migrate().await?;
    Ok(Arc::new(store))
}

async fn import(store: &PgStore, import: AccountImport) -> anyhow::Result<()> {
    let mut tx = store.begin().await?;
    tx.import_account(import).await?;
    tx.commit(audit("account.import", "account")).await?;
    Ok(())
}

#[tokio::test]
async fn postgres_backup_is_read_back_restored_into_scratch_and_counts_match() -> anyhow::Result<()> {
    let bucket = Bucket::create().await?;
    let source = FreshDatabase::create().await?;
    let store = migrated_store(&source.url).await?;
    import(&store, account_import("acct-1", "tok-1")).await?;
    import(&store, account_import("acct-2", "tok-2")).await?;
    let mut raw = PgConnection::connect(&source.url).await?;
    raw.execute("CREATE TABLE fixture AS SELECT g AS id, md5(g::text) AS payload FROM generate_series(1, 2500) g")
        .await?;
    bucket.configure(store.as_ref()).await?;

    let engine = S3BackupEngine::postgres(PostgresSource::new(&source.url, None)?);
    let daemon = BackupDaemon::new(store.clone(), Arc::new(engine.clone()), BackupDaemonConfig::default());
    let queued = daemon.enqueue_manual(Some(7), OffsetDateTime::now_utc()).await?;
    assert_eq!(queued.state, BackupState::Queued);
    let done = daemon.run_queued(OffsetDateTime::now_utc()).await?.expect("the queued job is claimed");

    assert_eq!(done.state, BackupState::Completed, "{:?}", done.error_message);
    assert!(done.is_verified(), "scratch restore: {:?}", done.verify_error);
    let counts = done.row_counts.clone().expect("row counts recorded");
    assert_eq!(counts.get("public.fixture"), Some(&2500));
    assert_eq!(counts.get("public.provider_accounts"), Some(&2));
    let key = done.object_key.clone().expect("object key");
    assert!(key.starts_with("backups/switchboard-") && key.ends_with(".dump"), "{key}");
    assert_eq!(bucket.objects().await?, vec![key.clone()]);
    assert!(bucket.open_uploads().await?.is_empty());
    assert_eq!(done.bytes_done, done.size_bytes.expect("size"));

    // The operator's restore: into an empty database, the same rows per table.
    let target = FreshDatabase::create().await?;
    let sha = done.sha256.expect("sha256");
    let into = RestoreMode::Into { destination: &target.url, allow_non_empty: false };
    let restored = engine.restore(&bucket.target(), &key, sha, into).await?;
    assert_eq!(restored, counts);
    let mut check = PgConnection::connect(&target.url).await?;
    let query = "SELECT string_agg(payload, '' ORDER BY id) FROM fixture";
    let (restored_payload,): (String,) = sqlx::query_as(query).fetch_one(&mut check).await?;
    let (source_payload,): (String,) = sqlx::query_as(query).fetch_one(&mut raw).await?;
    assert_eq!(restored_payload, source_payload);
    check.close().await?;
    // …and a database that already holds tables is refused without confirmation.
    let again = engine.restore(&bucket.target(), &key, sha, into).await.expect_err("not empty");
    assert_eq!(again.code, "not_empty");

    // A damaged object fails verification (size is not enough: the hash is checked).
    bucket.overwrite(&key, b"not a dump").await?;
    let checked = daemon.verify(done.id, OffsetDateTime::now_utc()).await?;
    assert!(!checked.is_verified());
    assert!(
        checked.verify_error.as_deref().is_some_and(|e| e.contains("pg_restore") || e.contains("sha256")),
        "{checked:?}"
    );

    store.close().await;
    raw.close().await?;
    target.finish().await?;
    source.finish().await
}

#[tokio::test]
async fn postgres_dump_failure_keeps_pg_dump_stderr_in_the_record() -> anyhow::Result<()> {
    let bucket = Bucket::create().await?;
    let source = FreshDatabase::create().await?;
    let store = migrated_store(&source.url).await?;
    bucket.configure(store.as_ref()).await?;
    // An extra pg_dump argument naming a table that does not exist: pg_dump fails after the
    // upload started, with its own message on stderr.
    let source_with_args = PostgresSource::new(&source.url, None)?.with_dump_args(["--table=sb_no_such_table"]);
    let engine = S3BackupEngine::postgres(source_with_args);
    let daemon = BackupDaemon::new(store.clone(), Arc::new(engine), BackupDaemonConfig::default());
    daemon.enqueue_manual(None, OffsetDateTime::now_utc()).await?;
    let failed = daemon.run_queued(OffsetDateTime::now_utc()).await?.expect("claimed");
    assert_eq!(failed.state, BackupState::Failed);
    assert_eq!(failed.error_code.as_deref(), Some("pg_dump"));
    assert!(failed.error_message.as_deref().is_some_and(|m| m.contains("no matching tables")), "{failed:?}");
    assert!(bucket.open_uploads().await?.is_empty(), "the failed upload is aborted");
    assert!(bucket.objects().await?.is_empty());
    store.close().await;
    source.finish().await
}
