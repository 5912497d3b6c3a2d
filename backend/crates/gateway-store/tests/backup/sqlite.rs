//! Embedded mode: an online SQLite copy (`VACUUM INTO`) through the same S3 flow, read back,
//! restored into a scratch file, row counts equal; then a restore to a new file.

use std::sync::Arc;

use gateway_admin::backup::BackupState;
use gateway_admin::backup_daemon::{BackupDaemon, BackupDaemonConfig};
use gateway_admin::ports::{BackupJobs, UnitOfWork};
use gateway_store::backup::{RestoreMode, S3BackupEngine, SqliteSource};

use super::support::Bucket;
use crate::postgres::test_store::{account_import, audit};
use crate::sqlite::test_store::SqliteTestStore;

#[tokio::test]
async fn sqlite_backup_is_read_back_restored_into_scratch_and_counts_match() -> anyhow::Result<()> {
    let bucket = Bucket::create().await?;
    let t = SqliteTestStore::new().await?;
    for n in 0..3 {
        let mut tx = t.store.begin().await?;
        tx.import_account(account_import(&format!("acct-{n}"), &format!("tok-{n}"))).await?;
        tx.commit(audit("account.import", "account")).await?;
    }
    bucket.configure(&t.store).await?;
    let store = Arc::new(t.store.clone());
    let staging = t.dir().join("staging");
    let engine = S3BackupEngine::sqlite(SqliteSource::new(t.store.reader().clone(), &staging));
    let daemon = BackupDaemon::new(store.clone(), Arc::new(engine.clone()), BackupDaemonConfig::default());
    daemon.enqueue_manual(None, time::OffsetDateTime::now_utc()).await?;
    let done = daemon.run_queued(time::OffsetDateTime::now_utc()).await?.expect("claimed");

    assert_eq!(done.state, BackupState::Completed, "{:?}", done.error_message);
    assert!(done.is_verified(), "scratch restore: {:?}", done.verify_error);
    let counts = done.row_counts.clone().expect("row counts");
    assert_eq!(counts.get("provider_accounts"), Some(&3));
    assert_eq!(counts.get("backup_records"), Some(&1));
    let key = done.object_key.clone().expect("key");
    assert!(key.ends_with(".sqlite"), "{key}");
    assert_eq!(bucket.objects().await?, vec![key.clone()]);
    // The staging copy is gone once the job ends.
    assert_eq!(std::fs::read_dir(&staging)?.count(), 0);

    // Restore to a new file: same rows per table; an existing file is refused.
    let destination = t.dir().join("restored.sqlite3");
    let path = destination.to_str().expect("utf-8");
    let sha = done.sha256.expect("sha");
    let into = RestoreMode::Into { destination: path, allow_non_empty: false };
    let restored = engine.restore(&bucket.target(), &key, sha, into).await?;
    assert_eq!(restored, counts);
    let refused = engine.restore(&bucket.target(), &key, sha, into).await.expect_err("exists");
    assert_eq!(refused.code, "not_empty");

    // A damaged object fails the scratch restore.
    bucket.overwrite(&key, b"SQLite format 3\0 but not really").await?;
    let checked = daemon.verify(done.id, time::OffsetDateTime::now_utc()).await?;
    assert!(!checked.is_verified(), "{checked:?}");
    t.finish().await
}

#[tokio::test]
async fn the_cron_schedule_runs_one_job_per_instant_and_retention_keeps_the_newest_verified() -> anyhow::Result<()> {
    use time::macros::datetime;
    let bucket = Bucket::create().await?;
    let t = SqliteTestStore::new().await?;
    bucket.configure_with(&t.store, Some("*/10 * * * *"), Some(1)).await?;
    let store = Arc::new(t.store.clone());
    let engine = S3BackupEngine::sqlite(SqliteSource::new(t.store.reader().clone(), t.dir().join("staging")));
    let daemon = BackupDaemon::new(store.clone(), Arc::new(engine), BackupDaemonConfig::default());

    // The first tick only places the cursor; nothing fires before the next instant.
    let first = daemon.tick(datetime!(2026-12-01 10:01 UTC)).await?;
    assert_eq!((first.scheduled, first.ran.is_none()), (None, true));
    assert!(daemon.tick(datetime!(2026-12-01 10:09 UTC)).await?.scheduled.is_none());
    // 10:10 passed: one scheduled job, run in the same tick.
    let fired = daemon.tick(datetime!(2026-12-01 10:12 UTC)).await?;
    let one = fired.ran.expect("the scheduled job ran");
    assert_eq!((Some(one.id), one.trigger), (fired.scheduled, gateway_admin::backup::BackupTrigger::Scheduled));
    assert!(one.is_verified(), "{:?}", one.verify_error);
    // Missed instants (10:20 … 10:50) collapse into one run.
    let later = daemon.tick(datetime!(2026-12-01 10:55 UTC)).await?;
    let two = later.ran.expect("ran");
    assert!(two.is_verified());
    // retentionCount 1, applied in the same tick: the older backup goes (record and object),
    // the newest verified one stays — and stays on the next tick.
    assert_eq!(later.deleted, vec![one.id]);
    let after = daemon.tick(datetime!(2026-12-01 10:56 UTC)).await?;
    assert!(after.deleted.is_empty() && after.ran.is_none());
    let records = store.list_backups(None, 10).await?;
    assert_eq!(records.iter().map(|r| r.id).collect::<Vec<_>>(), vec![two.id]);
    assert_eq!(bucket.objects().await?, vec![two.object_key.clone().expect("key")]);
    t.finish().await
}
