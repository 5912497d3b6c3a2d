//! Backups: list and view, run now, verify, delete, and a download link behind a step-up.

use std::sync::Arc;

use crate::audit::AuditActor;
use crate::auth::{AdminPrincipal, ClientOrigin};
use crate::backup::{BackupId, BackupRecord};
use crate::backup_actions::{backup_download_link, delete_backup, run_backup, verify_backup};
use crate::backup_daemon::BackupDaemon;
use crate::error::AdminError;
use crate::ports::BackupJobs;
use crate::services::Mutations;
use crate::services::auth::StepUpPorts;

pub struct BackupsService {
    uow: Mutations,
    jobs: Arc<dyn BackupJobs>,
    daemon: Arc<BackupDaemon>,
    step_up: StepUpPorts,
}

impl BackupsService {
    pub fn new(uow: Mutations, jobs: Arc<dyn BackupJobs>, daemon: Arc<BackupDaemon>, step_up: StepUpPorts) -> Self {
        Self { uow, jobs, daemon, step_up }
    }

    /// Newest first, ids below `before`, at most `limit`.
    pub async fn list(&self, before: Option<BackupId>, limit: u32) -> Result<Vec<BackupRecord>, AdminError> {
        Ok(self.jobs.list_backups(before, limit).await?)
    }

    pub async fn get(&self, id: BackupId) -> Result<BackupRecord, AdminError> {
        Ok(self.jobs.get_backup(id).await?)
    }

    /// Queues a manual backup (audited).
    pub async fn run(&self, actor: AuditActor, expires_in_days: Option<u32>) -> Result<BackupRecord, AdminError> {
        run_backup(self.uow.get(), &self.daemon, actor, expires_in_days).await
    }

    pub async fn verify(&self, actor: AuditActor, id: BackupId) -> Result<BackupRecord, AdminError> {
        verify_backup(self.uow.get(), &self.daemon, actor, id).await
    }

    pub async fn delete(&self, actor: AuditActor, id: BackupId) -> Result<(), AdminError> {
        delete_backup(self.uow.get(), &self.daemon, actor, id).await
    }

    /// A short-lived download link, once the password confirms it (audited).
    pub async fn download_link(
        &self,
        principal: &AdminPrincipal,
        origin: &ClientOrigin,
        password: &str,
        id: BackupId,
    ) -> Result<String, AdminError> {
        let step_up = self.step_up.for_request(principal, origin);
        backup_download_link(self.uow.get(), &self.daemon, &step_up, password, id).await
    }
}
