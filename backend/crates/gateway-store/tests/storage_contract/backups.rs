//! [`BackupJobs`]: one active job, checked state steps, listing and expiry.

use gateway_admin::backup::{BackupProgress, BackupState, BackupTrigger};
use gateway_admin::ports::BackupJobs;
use gateway_core::ports::{StorageError, StorageErrorKind};

use crate::storage_contract::fixtures::{Harness, now};

pub async fn only_one_backup_job_is_active_at_a_time(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let first = store.enqueue_backup(BackupTrigger::Manual, None).await?;
    assert_eq!(first.state, BackupState::Queued);
    let err = store.enqueue_backup(BackupTrigger::Scheduled, None).await.expect_err("one active job");
    assert!(
        matches!(&err, StorageError::Conflict { constraint } if constraint == "backup_records_one_active_key"),
        "{err:?}"
    );

    let claimed = store.claim_queued_backup(now()).await?.expect("queued job");
    assert_eq!((claimed.id, claimed.state), (first.id, BackupState::Dumping));
    assert!(store.claim_queued_backup(now()).await?.is_none());
    assert_eq!(store.unfinished_backups().await?.len(), 1);
    assert_eq!(
        store.enqueue_backup(BackupTrigger::Manual, None).await.map_err(|e| e.kind()).err(),
        Some(StorageErrorKind::Conflict)
    );

    let skip = store
        .advance_backup(
            first.id,
            BackupProgress::Completed { object_key: "k".into(), size_bytes: 1, sha256: [0; 32] },
            now(),
        )
        .await
        .expect_err("dumping cannot jump to completed");
    assert_eq!(skip.kind(), StorageErrorKind::Conflict);
    store.advance_backup(first.id, BackupProgress::Uploading { object_key: "p/1.dump".into() }, now()).await?;
    let done = store
        .advance_backup(
            first.id,
            BackupProgress::Completed { object_key: "p/1.dump".into(), size_bytes: 42, sha256: [7; 32] },
            now(),
        )
        .await?;
    assert_eq!((done.state, done.size_bytes, done.sha256), (BackupState::Completed, Some(42), Some([7; 32])));

    let next = store.enqueue_backup(BackupTrigger::Scheduled, Some(now())).await?;
    assert_eq!(next.state, BackupState::Queued);
    assert_eq!(store.list_backups(None, 10).await?.len(), 2);
    store
        .advance_backup(
            next.id,
            BackupProgress::Failed { error_code: "pg_dump".into(), error_message: "exit 1".into() },
            now(),
        )
        .await?;
    assert_eq!(store.expired_backups(now(), 10).await?.len(), 1);
    store.advance_backup(next.id, BackupProgress::Deleting, now()).await?;
    store.delete_backup_record(next.id).await?;
    assert_eq!(store.get_backup(next.id).await.map_err(|e| e.kind()).err(), Some(StorageErrorKind::NotFound));
    h.finish().await
}

pub async fn backup_records_page_newest_first_by_id(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let mut ids = Vec::new();
    for n in 0..5 {
        let record = store.enqueue_backup(BackupTrigger::Manual, None).await?;
        let failed = BackupProgress::Failed { error_code: "test".into(), error_message: format!("job {n}") };
        store.advance_backup(record.id, failed, now()).await?;
        ids.push(record.id);
    }
    ids.reverse();
    // pages of 2 by the last id seen: every record once, newest first
    let mut seen = Vec::new();
    let mut before = None;
    loop {
        let page = store.list_backups(before, 2).await?;
        assert!(page.len() <= 2);
        let Some(last) = page.last() else { break };
        before = Some(last.id);
        seen.extend(page.iter().map(|r| r.id));
    }
    assert_eq!(seen, ids);
    // the position is an id, not an offset: deleting a record already shown moves nothing
    store.advance_backup(ids[1], BackupProgress::Deleting, now()).await?;
    store.delete_backup_record(ids[1]).await?;
    let after_second = store.list_backups(Some(ids[1]), 2).await?;
    assert_eq!(after_second.iter().map(|r| r.id).collect::<Vec<_>>(), ids[2..4]);
    h.finish().await
}
