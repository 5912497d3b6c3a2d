//! A job killed mid-upload (its future dropped while parts are in flight, as a process exit
//! leaves it): the record stays `uploading` with its multipart upload open; the daemon of the
//! next start fails it cleanly (`interrupted`), aborts the upload, and the next job succeeds.

use std::sync::Arc;
use std::time::Duration;

use gateway_admin::backup::BackupState;
use gateway_admin::backup_daemon::{BackupDaemon, BackupDaemonConfig};
use gateway_admin::ports::BackupJobs;
use gateway_store::backup::{MIN_PART_SIZE, PostgresSource, S3BackupEngine};
use sqlx::{Connection, Executor, PgConnection};
use time::OffsetDateTime;

use super::postgres::migrated_store;
use super::support::{Bucket, FreshDatabase};

#[tokio::test]
async fn a_backup_killed_mid_upload_fails_cleanly_after_restart() -> anyhow::Result<()> {
    let bucket = Bucket::create().await?;
    let source = FreshDatabase::create().await?;
    let store = migrated_store(&source.url).await?;
    let mut raw = PgConnection::connect(&source.url).await?;
    // ≈12 MB of poorly compressible text: the dump needs more than one 5 MiB part.
    raw.execute(
        "CREATE TABLE bulk AS SELECT g AS id, md5(random()::text) || md5(random()::text) || \
         md5(random()::text) || md5(random()::text) AS payload FROM generate_series(1, 120000) g",
    )
    .await?;
    bucket.configure(store.as_ref()).await?;
    let engine =
        Arc::new(S3BackupEngine::postgres(PostgresSource::new(&source.url, None)?).with_part_size(MIN_PART_SIZE));
    let first = BackupDaemon::new(store.clone(), engine.clone(), BackupDaemonConfig::default());
    let job = first.enqueue_manual(None, OffsetDateTime::now_utc()).await?;

    // Run the job until its first part is stored, then drop it mid-upload.
    let watcher = async {
        loop {
            let record = store.get_backup(job.id).await?;
            if record.upload_id.is_some() && record.bytes_done > 0 {
                return Ok::<_, anyhow::Error>(record);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let record = tokio::select! {
        finished = first.run_queued(OffsetDateTime::now_utc()) => anyhow::bail!("the job finished before it was cut: {finished:?}"),
        seen = tokio::time::timeout(Duration::from_secs(60), watcher) => seen??,
    };
    drop(first);
    assert_eq!(record.state, BackupState::Uploading);
    assert_eq!(bucket.open_uploads().await?.len(), 1, "the cut job left its upload open");

    // A daemon whose heartbeat lease has not passed leaves the job alone (another replica may run it)…
    let patient = BackupDaemon::new(store.clone(), engine.clone(), BackupDaemonConfig::default());
    assert!(patient.recover(OffsetDateTime::now_utc()).await?.is_empty());
    // …once the lease passed, the next start fails it and aborts the upload.
    let restarted = BackupDaemon::new(store.clone(), engine.clone(), BackupDaemonConfig::default());
    let later = OffsetDateTime::now_utc() + time::Duration::minutes(6);
    assert_eq!(restarted.recover(later).await?, vec![job.id]);
    let failed = store.get_backup(job.id).await?;
    assert_eq!(failed.state, BackupState::Failed);
    assert_eq!(failed.error_code.as_deref(), Some("interrupted"));
    assert!(failed.upload_id.is_none());
    assert!(bucket.open_uploads().await?.is_empty(), "the interrupted upload is aborted");
    assert!(bucket.objects().await?.is_empty());

    // The one-active-job slot is free again: the next backup completes and verifies.
    restarted.enqueue_manual(None, OffsetDateTime::now_utc()).await?;
    let next = restarted.run_queued(OffsetDateTime::now_utc()).await?.expect("claimed");
    assert_eq!(next.state, BackupState::Completed, "{:?}", next.error_message);
    assert!(next.is_verified(), "{:?}", next.verify_error);
    assert_eq!(next.row_counts.as_ref().and_then(|c| c.get("public.bulk")), Some(&120_000));
    assert!(next.size_bytes.is_some_and(|s| s > MIN_PART_SIZE as u64), "more than one part: {:?}", next.size_bytes);

    store.close().await;
    raw.close().await?;
    source.finish().await
}
