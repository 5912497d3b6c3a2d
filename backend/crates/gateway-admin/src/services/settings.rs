//! Runtime settings and backup settings: read, and change in one audited unit of work.

use std::sync::Arc;

use gateway_core::domain::{ConfigRevision, RuntimeSettings};

use crate::audit::AuditActor;
use crate::backup::BackupSettings;
use crate::backup_settings::{BackupSettingsInput, update_backup_settings};
use crate::error::AdminError;
use crate::ports::{BackupJobs, RuntimeSettingsReader};
use crate::services::Mutations;
use crate::settings::update_settings;
use crate::url_guard::UrlGuard;

pub struct SettingsService {
    uow: Mutations,
    settings: Arc<dyn RuntimeSettingsReader>,
    backups: Arc<dyn BackupJobs>,
    url_guard: Arc<UrlGuard>,
}

impl SettingsService {
    pub fn new(
        uow: Mutations,
        settings: Arc<dyn RuntimeSettingsReader>,
        backups: Arc<dyn BackupJobs>,
        url_guard: Arc<UrlGuard>,
    ) -> Self {
        Self { uow, settings, backups, url_guard }
    }

    /// The current revision and runtime settings.
    pub async fn runtime(&self) -> Result<(ConfigRevision, RuntimeSettings), AdminError> {
        Ok(self.settings.read_runtime_settings().await?)
    }

    /// Applies `change` to the current settings and stores the result (validated, audited);
    /// refused when `expected` names a revision that is no longer current. Returns the
    /// settings before, after, and the new revision.
    pub async fn update_runtime(
        &self,
        actor: AuditActor,
        expected: Option<ConfigRevision>,
        change: impl FnOnce(&RuntimeSettings) -> RuntimeSettings + Send,
    ) -> Result<(RuntimeSettings, RuntimeSettings, ConfigRevision), AdminError> {
        let (_, current) = self.runtime().await?;
        let next = change(&current);
        let (before, revision) =
            update_settings(self.uow.get(), self.settings.as_ref(), actor, expected, next.clone()).await?;
        Ok((before, next, revision))
    }

    pub async fn backup(&self) -> Result<BackupSettings, AdminError> {
        Ok(self.backups.read_backup_settings().await?)
    }

    /// Replaces the backup settings (endpoint checked by the SSRF guard; audited).
    pub async fn update_backup(
        &self,
        actor: AuditActor,
        input: BackupSettingsInput,
    ) -> Result<BackupSettings, AdminError> {
        update_backup_settings(self.uow.get(), self.backups.as_ref(), self.url_guard.as_ref(), actor, input).await
    }
}
