//! One job: dump and upload, read the object back, optionally restore it into a scratch
//! database. Each step's failure ends the job as `failed` with the step's code and message.

use time::OffsetDateTime;

use async_trait::async_trait;

use super::BackupDaemon;
use crate::backup::{BackupProgress, BackupRecord, BackupTransfer, RowCounts};
use crate::error::AdminError;
use crate::ports::{BackupEngine, BackupFailure, BackupJobs, BackupTarget, TransferProgress};

/// Largest message kept in a record (the column allows 2000 bytes).
const MESSAGE_LIMIT: usize = 1900;

pub(super) async fn run(daemon: &BackupDaemon, record: BackupRecord) -> Result<BackupRecord, AdminError> {
    let id = record.id;
    match upload(daemon, &record).await {
        Ok((key, target)) => {
            let done = daemon.jobs.get_backup(id).await?;
            if !daemon.config.verify_restore {
                return Ok(done);
            }
            let (Some(sha), counts) = (done.sha256, done.row_counts.as_ref()) else { return Ok(done) };
            let outcome = verify_restore(daemon.engine.as_ref(), &target, &key, sha, counts).await;
            if let Err(e) = &outcome {
                tracing::warn!(backup = %id, error = %e, "the restore check of a new backup failed");
            }
            Ok(daemon.jobs.record_backup_verification(id, outcome, OffsetDateTime::now_utc()).await?)
        }
        Err(failure) => {
            let step = BackupProgress::Failed {
                error_code: truncate(&failure.code, 120),
                error_message: truncate(&failure.message, MESSAGE_LIMIT),
            };
            tracing::warn!(backup = %id, code = %failure.code, "backup failed");
            Ok(daemon.jobs.advance_backup(id, step, OffsetDateTime::now_utc()).await?)
        }
    }
}

async fn upload(daemon: &BackupDaemon, record: &BackupRecord) -> Result<(String, BackupTarget), BackupFailure> {
    let storage = |e: gateway_core::ports::StorageError| BackupFailure::new("storage", e.to_string());
    let target = daemon.target().await?;
    daemon.engine.preflight().await?;
    let stamp = record.started_at.unwrap_or(record.created_at);
    let name = format!(
        "switchboard-{:04}{:02}{:02}T{:02}{:02}{:02}Z-{}.{}",
        stamp.year(),
        u8::from(stamp.month()),
        stamp.day(),
        stamp.hour(),
        stamp.minute(),
        stamp.second(),
        record.id,
        daemon.engine.extension()
    );
    let key = target.object_key(&name);
    let progress = JobProgress { jobs: daemon.jobs.as_ref(), record, key: &key };
    let uploaded = daemon.engine.dump_and_upload(&target, &key, &progress).await?;
    daemon.engine.check_object(&target, &key, uploaded.size_bytes, uploaded.sha256).await?;
    let now = OffsetDateTime::now_utc();
    let transfer =
        BackupTransfer { upload_id: None, bytes_done: uploaded.size_bytes, row_counts: Some(uploaded.row_counts) };
    daemon.jobs.update_backup_transfer(record.id, &transfer, now).await.map_err(storage)?;
    let step =
        BackupProgress::Completed { object_key: key.clone(), size_bytes: uploaded.size_bytes, sha256: uploaded.sha256 };
    daemon.jobs.advance_backup(record.id, step, now).await.map_err(storage)?;
    Ok((key, target))
}

/// Restores into a scratch database and compares its row counts with the dump's.
pub(super) async fn verify_restore(
    engine: &dyn BackupEngine,
    target: &BackupTarget,
    key: &str,
    sha256: [u8; 32],
    expected: Option<&RowCounts>,
) -> Result<(), String> {
    let restored =
        engine.restore_scratch(target, key, sha256).await.map_err(|e| truncate(&e.to_string(), MESSAGE_LIMIT))?;
    let Some(expected) = expected else { return Err("the record has no row counts to compare".into()) };
    compare_row_counts(expected, &restored).map_err(|e| truncate(&e, MESSAGE_LIMIT))
}

/// `Ok` when both sides have the same tables with the same counts; else the differences.
pub fn compare_row_counts(expected: &RowCounts, restored: &RowCounts) -> Result<(), String> {
    let mut differences = Vec::new();
    for (table, want) in expected {
        match restored.get(table) {
            Some(got) if got == want => {}
            Some(got) => differences.push(format!("{table}: {want} rows in the dump, {got} restored")),
            None => differences.push(format!("{table}: missing after restore")),
        }
    }
    for table in restored.keys().filter(|t| !expected.contains_key(*t)) {
        differences.push(format!("{table}: restored but not in the dump"));
    }
    if differences.is_empty() { Ok(()) } else { Err(format!("row counts differ: {}", differences.join("; "))) }
}

fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

struct JobProgress<'a> {
    jobs: &'a dyn BackupJobs,
    record: &'a BackupRecord,
    key: &'a str,
}

#[async_trait]
impl TransferProgress for JobProgress<'_> {
    async fn upload_started(&self, upload_id: &str) {
        let now = OffsetDateTime::now_utc();
        let step = BackupProgress::Uploading { object_key: self.key.to_owned() };
        if let Err(e) = self.jobs.advance_backup(self.record.id, step, now).await {
            tracing::warn!(backup = %self.record.id, error = %e, "recording the upload start failed");
        }
        let transfer = BackupTransfer { upload_id: Some(upload_id.to_owned()), ..BackupTransfer::default() };
        if let Err(e) = self.jobs.update_backup_transfer(self.record.id, &transfer, now).await {
            tracing::warn!(backup = %self.record.id, error = %e, "recording the upload id failed");
        }
    }

    async fn bytes_uploaded(&self, bytes_done: u64) {
        let transfer = BackupTransfer { bytes_done, ..BackupTransfer::default() };
        if let Err(e) = self.jobs.update_backup_transfer(self.record.id, &transfer, OffsetDateTime::now_utc()).await {
            tracing::warn!(backup = %self.record.id, error = %e, "recording upload progress failed");
        }
    }
}
