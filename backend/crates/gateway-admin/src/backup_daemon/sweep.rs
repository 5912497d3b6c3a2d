//! The sweep of what a hard kill leaves behind: local staging directories no job of this
//! process uses, and incomplete multipart uploads under the backup prefix that started before
//! the oldest running job (so they belong to no live job). It runs when the daemon starts and
//! before each job; a job's own upload is never touched.

use time::{Duration, OffsetDateTime};

use crate::backup::BackupState;
use crate::error::AdminError;

use super::BackupDaemon;

/// Uploads started less than this before the cut-off are left alone (clock skew between the
/// gateway and the storage server).
pub const SWEEP_MARGIN: Duration = Duration::minutes(1);

/// What one sweep removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Staging directories removed.
    pub staging: Vec<String>,
    /// Object keys whose incomplete upload was aborted.
    pub uploads: Vec<String>,
}

impl BackupDaemon {
    /// Removes left-over staging directories and aborts stale multipart uploads. Unconfigured
    /// storage skips the upload part; a failing part is logged and the other still runs.
    pub async fn sweep(&self, now: OffsetDateTime) -> Result<SweepReport, AdminError> {
        let staging = self.engine.sweep_staging().await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "sweeping backup staging directories failed");
            Vec::new()
        });
        let Ok(target) = self.target().await else { return Ok(SweepReport { staging, uploads: Vec::new() }) };
        let running: Vec<_> = self
            .jobs
            .unfinished_backups()
            .await?
            .into_iter()
            .filter(|r| matches!(r.state, BackupState::Dumping | BackupState::Uploading))
            .collect();
        let oldest = running.iter().map(|r| r.started_at.unwrap_or(r.created_at)).min().unwrap_or(now);
        let keep: Vec<String> = running.iter().filter_map(|r| r.upload_id.clone()).collect();
        let uploads =
            self.engine.abort_stale_uploads(&target, oldest.min(now) - SWEEP_MARGIN, &keep).await.unwrap_or_else(|e| {
                tracing::warn!(error = %e, "aborting stale backup uploads failed");
                Vec::new()
            });
        if !staging.is_empty() || !uploads.is_empty() {
            tracing::info!(
                staging = staging.len(),
                uploads = uploads.len(),
                "swept what an earlier backup left behind"
            );
        }
        Ok(SweepReport { staging, uploads })
    }
}
