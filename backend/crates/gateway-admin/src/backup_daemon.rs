//! The backup daemon's policy: recover interrupted jobs, fire the cron schedule, claim and run
//! the one queued job (dump → multipart upload → read back → optional full-restore check),
//! converge deletions and apply retention; before each job (and at start) sweep what a hard kill
//! left behind (`sweep`). Every step is idempotent, so any replica may run a
//! tick; the store's claim (`FOR UPDATE SKIP LOCKED`) and the one-active-job index make sure a
//! job runs once. Adapters come through [`BackupJobs`] and [`BackupEngine`].

pub mod retention;
pub mod schedule;
pub mod sweep;

mod job;

pub use job::compare_row_counts;

use std::sync::Arc;
use std::time::Duration as StdDuration;

use time::{Duration, OffsetDateTime};

use crate::backup::{BackupId, BackupProgress, BackupRecord, BackupState, BackupTrigger};
use crate::error::AdminError;
use crate::ports::{BackupEngine, BackupFailure, BackupJobs, BackupTarget, StorageErrorKind};
use retention::{RetentionPolicy, retention_plan};
use schedule::CronSchedule;

/// The daemon's knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackupDaemonConfig {
    /// A running job whose heartbeat is older than this is taken as interrupted (its process
    /// died): its upload is aborted and it fails with `interrupted`.
    pub stale_after: Duration,
    /// Restore every new backup into a scratch database and compare row counts.
    pub verify_restore: bool,
    /// Records deleted per tick at most (small batches).
    pub retention_batch: usize,
}

impl Default for BackupDaemonConfig {
    fn default() -> Self {
        Self { stale_after: Duration::minutes(5), verify_restore: true, retention_batch: 10 }
    }
}

/// What one tick did (for logs and tests).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TickReport {
    pub interrupted: Vec<BackupId>,
    pub scheduled: Option<BackupId>,
    pub ran: Option<BackupRecord>,
    pub deleted: Vec<BackupId>,
}

pub struct BackupDaemon {
    jobs: Arc<dyn BackupJobs>,
    engine: Arc<dyn BackupEngine>,
    config: BackupDaemonConfig,
}

/// The link a presigned download gives: valid for five minutes.
pub const DOWNLOAD_LINK_TTL: StdDuration = StdDuration::from_secs(300);

impl BackupDaemon {
    pub fn new(jobs: Arc<dyn BackupJobs>, engine: Arc<dyn BackupEngine>, config: BackupDaemonConfig) -> Self {
        Self { jobs, engine, config }
    }

    /// One pass over everything the daemon owns.
    /// A failing step (a bad stored schedule, storage down) is logged and the others still run;
    /// the tick fails only when the job step itself could not reach the store.
    pub async fn tick(&self, now: OffsetDateTime) -> Result<TickReport, AdminError> {
        let interrupted = logged("recover", self.recover(now).await).unwrap_or_default();
        let scheduled = logged("schedule", self.fire_schedule(now).await).flatten().map(|r| r.id);
        let ran = self.run_queued(now).await?;
        let deleted = logged("retention", self.apply_retention(now).await).unwrap_or_default();
        Ok(TickReport { interrupted, scheduled, ran, deleted })
    }

    /// Fails running jobs whose heartbeat is stale (aborting their upload) and finishes
    /// deletions that were interrupted.
    pub async fn recover(&self, now: OffsetDateTime) -> Result<Vec<BackupId>, AdminError> {
        let mut failed = Vec::new();
        for record in self.jobs.unfinished_backups().await? {
            match record.state {
                BackupState::Deleting => {
                    self.finish_delete(&record).await?;
                }
                _ if now - record.updated_at >= self.config.stale_after => {
                    if let (Some(key), Some(upload)) = (&record.object_key, &record.upload_id)
                        && let Ok(target) = self.target().await
                        && let Err(e) = self.engine.abort_upload(&target, key, upload).await
                    {
                        tracing::warn!(backup = %record.id, error = %e, "aborting the interrupted upload failed");
                    }
                    let message = format!("the job stopped while {} (process exit or restart)", record.state);
                    let step = BackupProgress::Failed { error_code: "interrupted".into(), error_message: message };
                    if self.jobs.advance_backup(record.id, step, now).await.is_ok() {
                        failed.push(record.id);
                    }
                }
                _ => {}
            }
        }
        Ok(failed)
    }

    /// Queues a scheduled job when the cron schedule fired since the cursor. A first tick only
    /// sets the cursor; missed instants collapse into one run.
    pub async fn fire_schedule(&self, now: OffsetDateTime) -> Result<Option<BackupRecord>, AdminError> {
        let settings = self.jobs.read_backup_settings().await?;
        let Some(cron) = settings.schedule_cron.filter(|_| settings.enabled) else { return Ok(None) };
        let schedule = CronSchedule::parse(&cron).map_err(|e| AdminError::Conflict(format!("scheduleCron: {e}")))?;
        let Some(cursor) = settings.schedule_cursor_at else {
            self.jobs.advance_backup_schedule(now).await?;
            return Ok(None);
        };
        if schedule.next_after(cursor).is_none_or(|next| next > now) {
            return Ok(None);
        }
        self.jobs.advance_backup_schedule(now).await?;
        let expires = settings.retention_days.map(|d| now + Duration::days(i64::from(d)));
        match self.jobs.enqueue_backup(BackupTrigger::Scheduled, expires).await {
            Ok(record) => Ok(Some(record)),
            Err(e) if e.kind() == StorageErrorKind::Conflict => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Queues a manual backup (`Conflict` while another job is active).
    pub async fn enqueue_manual(
        &self,
        expires_in_days: Option<u32>,
        now: OffsetDateTime,
    ) -> Result<BackupRecord, AdminError> {
        let settings = self.jobs.read_backup_settings().await?;
        if settings.endpoint.is_empty() || settings.bucket.is_empty() || !settings.has_credentials {
            return Err(AdminError::Conflict("backup storage is not configured (endpoint, bucket, keys)".into()));
        }
        let expires = expires_in_days.map(|d| now + Duration::days(i64::from(d)));
        self.jobs.enqueue_backup(BackupTrigger::Manual, expires).await.map_err(|e| {
            if e.kind() == StorageErrorKind::Conflict {
                AdminError::Conflict("another backup is queued or running".into())
            } else {
                e.into()
            }
        })
    }

    /// Claims the queued job, if any, and runs it to `completed` or `failed`.
    pub async fn run_queued(&self, now: OffsetDateTime) -> Result<Option<BackupRecord>, AdminError> {
        let Some(record) = self.jobs.claim_queued_backup(now).await? else { return Ok(None) };
        logged("sweep", self.sweep(now).await);
        Ok(Some(job::run(self, record).await?))
    }

    /// Restores the backup into a scratch database and compares row counts with the dump's.
    pub async fn verify(&self, id: BackupId, now: OffsetDateTime) -> Result<BackupRecord, AdminError> {
        let record = self.jobs.get_backup(id).await?;
        let (Some(key), Some(sha), BackupState::Completed) = (&record.object_key, record.sha256, record.state) else {
            return Err(AdminError::Conflict("only a completed backup can be verified".into()));
        };
        let outcome = match self.target().await {
            Ok(target) => {
                job::verify_restore(self.engine.as_ref(), &target, key, sha, record.row_counts.as_ref()).await
            }
            Err(e) => Err(e.to_string()),
        };
        Ok(self.jobs.record_backup_verification(id, outcome, now).await?)
    }

    /// Marks the record `deleting`, removes its object and then the record (an explicit admin
    /// action: unlike retention it may remove the newest verified backup).
    pub async fn delete(&self, id: BackupId, now: OffsetDateTime) -> Result<(), AdminError> {
        let record = self.jobs.advance_backup(id, BackupProgress::Deleting, now).await.map_err(|e| {
            if e.kind() == StorageErrorKind::Conflict {
                AdminError::Conflict("a running backup cannot be deleted".into())
            } else {
                e.into()
            }
        })?;
        self.finish_delete(&record).await
    }

    /// A 5-minute presigned GET link for a completed backup.
    pub async fn download_link(&self, id: BackupId) -> Result<String, AdminError> {
        let record = self.jobs.get_backup(id).await?;
        let (Some(key), BackupState::Completed) = (&record.object_key, record.state) else {
            return Err(AdminError::Conflict("only a completed backup can be downloaded".into()));
        };
        let target = self.target().await.map_err(|e| AdminError::Conflict(e.to_string()))?;
        self.engine
            .presign_download(&target, key, DOWNLOAD_LINK_TTL)
            .await
            .map_err(|e| AdminError::Conflict(e.to_string()))
    }

    /// Deletes what retention (and `expires_at`) selects, at most `retention_batch` per tick.
    pub async fn apply_retention(&self, now: OffsetDateTime) -> Result<Vec<BackupId>, AdminError> {
        let settings = self.jobs.read_backup_settings().await?;
        let records = self.all_records().await?;
        let policy = RetentionPolicy { count: settings.retention_count, days: settings.retention_days };
        let mut deleted = Vec::new();
        for id in retention_plan(&records, policy, now).into_iter().take(self.config.retention_batch) {
            match self.delete(id, now).await {
                Ok(()) => deleted.push(id),
                Err(e) => tracing::warn!(backup = %id, error = %e, "retention could not delete a backup"),
            }
        }
        Ok(deleted)
    }

    async fn all_records(&self) -> Result<Vec<BackupRecord>, AdminError> {
        let mut all = Vec::new();
        let mut before = None;
        loop {
            let page = self.jobs.list_backups(before, 500).await?;
            let Some(last) = page.last() else { break };
            before = Some(last.id);
            all.extend(page);
        }
        Ok(all)
    }

    async fn finish_delete(&self, record: &BackupRecord) -> Result<(), AdminError> {
        if let Some(key) = &record.object_key {
            let target = self.target().await.map_err(|e| AdminError::Conflict(e.to_string()))?;
            self.engine.delete_object(&target, key).await.map_err(|e| AdminError::Conflict(e.to_string()))?;
        }
        match self.jobs.delete_backup_record(record.id).await {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == StorageErrorKind::NotFound => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// The storage the settings name, with its secrets.
    pub async fn target(&self) -> Result<BackupTarget, BackupFailure> {
        let storage = |e: gateway_core::ports::StorageError| BackupFailure::new("storage", e.to_string());
        let settings = self.jobs.read_backup_settings().await.map_err(storage)?;
        let secrets = self.jobs.read_backup_secrets().await.map_err(storage)?;
        let secrets = secrets.ok_or_else(|| BackupFailure::new("no_credentials", "no storage keys are configured"))?;
        if settings.endpoint.is_empty() || settings.bucket.is_empty() {
            return Err(BackupFailure::new("not_configured", "backup storage needs an endpoint and a bucket"));
        }
        Ok(BackupTarget {
            endpoint: settings.endpoint,
            region: settings.region,
            bucket: settings.bucket,
            path_style: settings.path_style,
            prefix: settings.prefix,
            secrets,
        })
    }
}

fn logged<T>(step: &str, result: Result<T, AdminError>) -> Option<T> {
    result.map_err(|e| tracing::warn!(step, error = %e, "backup daemon step failed")).ok()
}
