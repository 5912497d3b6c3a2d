//! Embedded mode: an online SQLite copy (`VACUUM INTO`) through the same S3 flow, read back,
//! restored into a scratch file, row counts equal; then a restore to a new file.

use std::sync::Arc;

use gateway_admin::backup::BackupState;
use gateway_admin::backup_daemon::{BackupDaemon, BackupDaemonConfig};
use gateway_admin::ports::UnitOfWork;
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
