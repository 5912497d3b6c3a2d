use gateway_admin::backup::{BackupProgress, BackupState, BackupTrigger};
use gateway_admin::ports::BackupJobs;
use gateway_core::ports::{StorageError, StorageErrorKind};

use crate::postgres::test_store::{TestStore, now};

#[tokio::test]
async fn only_one_backup_job_is_active_at_a_time() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let first = t.store.enqueue_backup(BackupTrigger::Manual, None).await?;
    assert_eq!(first.state, BackupState::Queued);
    let err = t.store.enqueue_backup(BackupTrigger::Scheduled, None).await.expect_err("one active job");
    assert!(
        matches!(&err, StorageError::Conflict { constraint } if constraint == "backup_records_one_active_key"),
        "{err:?}"
    );

    let claimed = t.store.claim_queued_backup(now()).await?.expect("queued job");
    assert_eq!((claimed.id, claimed.state), (first.id, BackupState::Dumping));
    assert!(t.store.claim_queued_backup(now()).await?.is_none());
    assert_eq!(t.store.unfinished_backups().await?.len(), 1);
    assert_eq!(
        t.store.enqueue_backup(BackupTrigger::Manual, None).await.map_err(|e| e.kind()).err(),
        Some(StorageErrorKind::Conflict)
    );

    let skip = t
        .store
        .advance_backup(
            first.id,
            BackupProgress::Completed { object_key: "k".into(), size_bytes: 1, sha256: [0; 32] },
            now(),
        )
        .await
        .expect_err("dumping cannot jump to completed");
    assert_eq!(skip.kind(), StorageErrorKind::Conflict);
    t.store.advance_backup(first.id, BackupProgress::Uploading { object_key: "p/1.dump".into() }, now()).await?;
    let done = t
        .store
        .advance_backup(
            first.id,
            BackupProgress::Completed { object_key: "p/1.dump".into(), size_bytes: 42, sha256: [7; 32] },
            now(),
        )
        .await?;
    assert_eq!((done.state, done.size_bytes, done.sha256), (BackupState::Completed, Some(42), Some([7; 32])));

    let next = t.store.enqueue_backup(BackupTrigger::Scheduled, Some(now())).await?;
    assert_eq!(next.state, BackupState::Queued);
    assert_eq!(t.store.list_backups(None, 10).await?.len(), 2);
    t.store
        .advance_backup(
            next.id,
            BackupProgress::Failed { error_code: "pg_dump".into(), error_message: "exit 1".into() },
            now(),
        )
        .await?;
    assert_eq!(t.store.expired_backups(now(), 10).await?.len(), 1);
    t.store.advance_backup(next.id, BackupProgress::Deleting, now()).await?;
    t.store.delete_backup_record(next.id).await?;
    assert_eq!(t.store.get_backup(next.id).await.map_err(|e| e.kind()).err(), Some(StorageErrorKind::NotFound));
    t.finish().await
}
