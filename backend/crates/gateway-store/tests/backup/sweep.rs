//! What a hard kill leaves behind is swept at start and before each job: staging directories
//! no job of this process uses, and incomplete multipart uploads under the backup prefix that
//! started before the running job. Uploads elsewhere in the bucket, newer than a running job,
//! or a running job's own are left alone.

use std::sync::Arc;

use gateway_admin::backup::{BackupProgress, BackupState, BackupTransfer};
use gateway_admin::backup_daemon::{BackupDaemon, BackupDaemonConfig};
use gateway_admin::ports::BackupJobs;
use gateway_store::backup::{S3BackupEngine, SqliteSource};
use time::{Duration, OffsetDateTime};

use super::support::Bucket;
use crate::sqlite::test_store::SqliteTestStore;

#[tokio::test]
async fn a_sweep_removes_left_over_staging_and_uploads_older_than_the_running_job() -> anyhow::Result<()> {
    let bucket = Bucket::create().await?;
    let t = SqliteTestStore::new().await?;
    bucket.configure(&t.store).await?;
    let store = Arc::new(t.store.clone());
    let staging = t.dir().join("backup-staging");
    let engine = S3BackupEngine::sqlite(SqliteSource::new(t.store.reader().clone(), &staging));
    let daemon = BackupDaemon::new(store.clone(), Arc::new(engine), BackupDaemonConfig::default());

    // A killed job's staging copy, and a file of someone else's beside it.
    let left = staging.join("switchboard-backup-0123456789abcdef");
    std::fs::create_dir_all(&left)?;
    std::fs::write(left.join("copy.sqlite"), b"half a copy")?;
    std::fs::write(staging.join("notes.txt"), b"not ours")?;
    // A killed job's upload under the prefix, and one outside it.
    bucket.leave_upload_open("backups/killed.sqlite").await?;
    bucket.leave_upload_open("elsewhere/other-tool.bin").await?;

    // A job running since now: uploads that started after it (less the margin) may be its own.
    let running = daemon.enqueue_manual(None, OffsetDateTime::now_utc()).await?;
    store.claim_queued_backup(OffsetDateTime::now_utc()).await?.expect("claimed");
    let own = bucket.leave_upload_open("backups/running.sqlite").await?;
    let transfer = BackupTransfer { upload_id: Some(own), bytes_done: 0, row_counts: None };
    store.update_backup_transfer(running.id, &transfer, OffsetDateTime::now_utc()).await?;
    let later = OffsetDateTime::now_utc() + Duration::minutes(10);
    let swept = daemon.sweep(later).await?;
    assert_eq!(swept.staging, vec![left.display().to_string()]);
    assert!(swept.uploads.is_empty(), "newer than the running job: {swept:?}");
    assert!(!left.exists() && staging.join("notes.txt").exists());
    assert_eq!(bucket.open_uploads().await?.len(), 3);

    // Once that job is gone, the next job's sweep (before it runs) aborts the stale uploads
    // under the prefix, its own included; the upload outside the prefix stays.
    let failed = BackupProgress::Failed { error_code: "interrupted".into(), error_message: "killed".into() };
    store.advance_backup(running.id, failed, OffsetDateTime::now_utc()).await?;
    std::fs::create_dir_all(&left)?;
    daemon.enqueue_manual(None, later).await?;
    let next = daemon.run_queued(later).await?.expect("claimed");
    assert_eq!(next.state, BackupState::Completed, "{:?}", next.error_message);
    assert!(next.is_verified(), "{:?}", next.verify_error);
    assert_eq!(bucket.open_uploads().await?, vec!["elsewhere/other-tool.bin".to_owned()]);
    assert!(!left.exists(), "the job's sweep removed the staging directory");
    assert!(staging.join("notes.txt").exists());
    t.finish().await
}
