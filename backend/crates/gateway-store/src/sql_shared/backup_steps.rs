//! The [`BackupJobs`] steps both dialects share: the columns a progress step writes, the
//! verification outcome, and turning "no row updated" into `NotFound` or a state conflict.

use gateway_admin::backup::{BackupId, BackupProgress, BackupRecord};
use gateway_admin::ports::BackupJobs;
use gateway_core::ports::StorageError;

use crate::postgres::column_values::int8;

/// What [`BackupJobs::advance_backup`] binds for one progress step.
pub(crate) struct ProgressColumns<'a> {
    /// The state written.
    pub(crate) target: &'static str,
    /// The states the row may be in.
    pub(crate) from: Vec<&'static str>,
    pub(crate) object_key: Option<&'a str>,
    pub(crate) size_bytes: Option<i64>,
    pub(crate) sha256: Option<&'a [u8]>,
    pub(crate) error_code: Option<&'a str>,
    pub(crate) error_message: Option<&'a str>,
    /// Completed or failed: stamps `finished_at` and forgets the upload id.
    pub(crate) terminal: bool,
}

pub(crate) fn progress_columns(progress: &BackupProgress) -> Result<ProgressColumns<'_>, StorageError> {
    let mut columns = ProgressColumns {
        target: progress.target().as_str(),
        from: progress.allowed_from().iter().map(|s| s.as_str()).collect(),
        object_key: None,
        size_bytes: None,
        sha256: None,
        error_code: None,
        error_message: None,
        terminal: matches!(progress, BackupProgress::Completed { .. } | BackupProgress::Failed { .. }),
    };
    match progress {
        BackupProgress::Uploading { object_key } => columns.object_key = Some(object_key),
        BackupProgress::Completed { object_key, size_bytes, sha256 } => {
            columns.object_key = Some(object_key);
            columns.size_bytes = Some(int8(*size_bytes, "backup_records.size_bytes")?);
            columns.sha256 = Some(sha256.as_slice());
        }
        BackupProgress::Failed { error_code, error_message } => {
            columns.error_code = Some(error_code);
            columns.error_message = Some(error_message);
        }
        BackupProgress::Deleting => {}
    }
    Ok(columns)
}

/// (verified?, error) of a full-restore verification outcome.
pub(crate) fn verification(outcome: &Result<(), String>) -> (bool, Option<&str>) {
    match outcome {
        Ok(()) => (true, None),
        Err(e) => (false, Some(e.as_str())),
    }
}

pub(crate) fn progress_conflict(progress: &BackupProgress) -> StorageError {
    StorageError::Conflict { constraint: format!("backup_records.state -> {}", progress.target()) }
}

pub(crate) fn not_running() -> StorageError {
    StorageError::Conflict { constraint: "backup_records.state (not running)".into() }
}

pub(crate) fn not_completed() -> StorageError {
    StorageError::Conflict { constraint: "backup_records.state (not completed)".into() }
}

/// The updated record; when no row was updated, `NotFound` if the record does not exist, else
/// `conflict` (it is in a state the step does not accept).
pub(crate) async fn updated_or<S: BackupJobs + ?Sized>(
    store: &S,
    id: BackupId,
    updated: Option<BackupRecord>,
    conflict: StorageError,
) -> Result<BackupRecord, StorageError> {
    match updated {
        Some(record) => Ok(record),
        None => {
            store.get_backup(id).await?;
            Err(conflict)
        }
    }
}

/// `Ok` when one row was updated; otherwise as [`updated_or`].
pub(crate) async fn touched_or<S: BackupJobs + ?Sized>(
    store: &S,
    id: BackupId,
    rows: u64,
    conflict: StorageError,
) -> Result<(), StorageError> {
    if rows == 1 {
        return Ok(());
    }
    store.get_backup(id).await?;
    Err(conflict)
}

/// `NotFound` unless one row was deleted.
pub(crate) fn deleted(rows: u64, id: BackupId) -> Result<(), StorageError> {
    if rows == 1 { Ok(()) } else { Err(StorageError::not_found("backup", id)) }
}
