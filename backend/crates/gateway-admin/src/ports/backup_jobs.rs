//! The backup daemon's and the admin API's view of backup records and settings. Record
//! transitions are runtime work: they do not bump `config_revision` (settings changes go
//! through the unit of work).

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_core::ports::StorageError;

use crate::backup::{
    BackupId, BackupProgress, BackupRecord, BackupSettings, BackupStorageSecrets, BackupTransfer, BackupTrigger,
};

#[async_trait]
pub trait BackupJobs: Send + Sync {
    async fn read_backup_settings(&self) -> Result<BackupSettings, StorageError>;
    /// The decrypted storage secrets, if any are stored.
    async fn read_backup_secrets(&self) -> Result<Option<BackupStorageSecrets>, StorageError>;
    async fn advance_backup_schedule(&self, cursor: OffsetDateTime) -> Result<(), StorageError>;

    /// Queues a job. `Conflict` (constraint `backup_records_one_active_key`) while another job is
    /// queued, dumping or uploading.
    async fn enqueue_backup(
        &self,
        trigger: BackupTrigger,
        expires_at: Option<OffsetDateTime>,
    ) -> Result<BackupRecord, StorageError>;
    /// Moves the queued job (if any) to `dumping` and returns it.
    async fn claim_queued_backup(&self, now: OffsetDateTime) -> Result<Option<BackupRecord>, StorageError>;
    /// Applies one step; `Conflict` when the record is not in a state the step allows.
    async fn advance_backup(
        &self,
        id: BackupId,
        progress: BackupProgress,
        now: OffsetDateTime,
    ) -> Result<BackupRecord, StorageError>;
    /// Records a running job's transfer facts and refreshes its heartbeat (`updated_at`); fields
    /// left `None` keep their value. `Conflict` unless the job is `dumping` or `uploading`.
    async fn update_backup_transfer(
        &self,
        id: BackupId,
        transfer: &BackupTransfer,
        now: OffsetDateTime,
    ) -> Result<(), StorageError>;
    /// Stores the outcome of a full-restore verification (`Ok` sets `verified_at` and clears
    /// `verify_error`; `Err` stores the message). `Conflict` unless the record is `completed`.
    async fn record_backup_verification(
        &self,
        id: BackupId,
        outcome: Result<(), String>,
        now: OffsetDateTime,
    ) -> Result<BackupRecord, StorageError>;
    /// Removes a record once its object is gone (the history stays in the audit trail).
    async fn delete_backup_record(&self, id: BackupId) -> Result<(), StorageError>;

    /// Newest first; `before_id` pages backwards.
    async fn list_backups(&self, before_id: Option<BackupId>, limit: u32) -> Result<Vec<BackupRecord>, StorageError>;
    async fn get_backup(&self, id: BackupId) -> Result<BackupRecord, StorageError>;
    /// Jobs in flight (`dumping`, `uploading`) or `deleting`: what a restarted daemon resumes.
    async fn unfinished_backups(&self) -> Result<Vec<BackupRecord>, StorageError>;
    /// Completed or failed records past `expires_at`, oldest first, at most `limit`.
    async fn expired_backups(&self, now: OffsetDateTime, limit: u32) -> Result<Vec<BackupRecord>, StorageError>;
}
