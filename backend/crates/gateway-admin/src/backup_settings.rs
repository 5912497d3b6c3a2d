//! Backup settings use case: storage identity locked once records exist, secrets write-only,
//! the endpoint checked by the SSRF guard (`url_guard`).

use gateway_core::redaction::url_userinfo_redacted;
use serde_json::json;

use crate::audit::{AuditActor, AuditEntry};
use crate::backup::{BackupSettings, BackupSettingsUpdate, BackupStorageSecrets, SecretsChange};
use crate::backup_daemon::schedule::CronSchedule;
use crate::error::{AdminError, FieldError};
use crate::ports::{BackupJobs, UnitOfWork};
use crate::url_guard::UrlGuard;

/// The settings as the admin sends them. The secret pair is write-only: both given replaces
/// the stored pair, neither keeps it (or clears it with `clear_credentials`). `Debug` shows
/// whether the keys were given, never their values.
#[derive(Clone, Default)]
pub struct BackupSettingsInput {
    pub enabled: bool,
    pub endpoint: String,
    pub region: String,
    pub bucket: String,
    pub path_style: bool,
    pub prefix: String,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    pub clear_credentials: bool,
    pub schedule_cron: Option<String>,
    pub retention_count: Option<u32>,
    pub retention_days: Option<u32>,
}

impl std::fmt::Debug for BackupSettingsInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let given = |v: &Option<String>| v.as_ref().map(|_| "[REDACTED]");
        f.debug_struct("BackupSettingsInput")
            .field("enabled", &self.enabled)
            .field("endpoint", &url_userinfo_redacted(&self.endpoint))
            .field("region", &self.region)
            .field("bucket", &self.bucket)
            .field("path_style", &self.path_style)
            .field("prefix", &self.prefix)
            .field("access_key_id", &given(&self.access_key_id))
            .field("secret_access_key", &given(&self.secret_access_key))
            .field("clear_credentials", &self.clear_credentials)
            .field("schedule_cron", &self.schedule_cron)
            .field("retention_count", &self.retention_count)
            .field("retention_days", &self.retention_days)
            .finish()
    }
}

async fn validate(input: &BackupSettingsInput, guard: &UrlGuard) -> Result<SecretsChange, AdminError> {
    let mut fields = Vec::new();
    if !input.endpoint.trim().is_empty()
        && let Err(refusal) = guard.check(&input.endpoint).await
    {
        fields.push(FieldError { field: "endpoint".into(), message: refusal.to_string() });
    }
    let mut limit = |field: &str, value: &str, max: usize| {
        if value.len() > max {
            fields.push(FieldError { field: field.to_owned(), message: format!("must be at most {max} bytes") });
        }
    };
    limit("endpoint", &input.endpoint, 2048);
    limit("region", &input.region, 64);
    limit("bucket", &input.bucket, 255);
    limit("prefix", &input.prefix, 1024);
    if let Some(cron) = &input.schedule_cron {
        let parsed =
            if cron.len() > 128 { Err("must be at most 128 bytes".to_owned()) } else { CronSchedule::parse(cron) };
        if let Err(message) = parsed {
            fields.push(FieldError { field: "scheduleCron".into(), message });
        }
    }
    if input.retention_count == Some(0) || input.retention_count.is_some_and(|v| v > i32::MAX as u32) {
        fields.push(FieldError { field: "retentionCount".into(), message: "must be at least 1".into() });
    }
    if input.retention_days == Some(0) || input.retention_days.is_some_and(|v| v > i32::MAX as u32) {
        fields.push(FieldError { field: "retentionDays".into(), message: "must be at least 1".into() });
    }
    if input.enabled && (input.endpoint.is_empty() || input.bucket.is_empty()) {
        fields.push(FieldError { field: "enabled".into(), message: "needs an endpoint and a bucket".into() });
    }
    let change = match (&input.access_key_id, &input.secret_access_key) {
        (Some(a), Some(s)) if !a.is_empty() && !s.is_empty() => {
            SecretsChange::Replace(BackupStorageSecrets::new(a.clone(), s.clone()))
        }
        (None, None) if input.clear_credentials => SecretsChange::Clear,
        (None, None) => SecretsChange::Keep,
        _ => {
            fields.push(FieldError {
                field: "secretAccessKey".into(),
                message: "give both accessKeyId and secretAccessKey, or neither".into(),
            });
            SecretsChange::Keep
        }
    };
    if fields.is_empty() { Ok(change) } else { Err(AdminError::InvalidFields(fields)) }
}

pub async fn update_backup_settings(
    uow: &dyn UnitOfWork,
    jobs: &dyn BackupJobs,
    guard: &UrlGuard,
    actor: AuditActor,
    input: BackupSettingsInput,
) -> Result<BackupSettings, AdminError> {
    let credentials = validate(&input, guard).await?;
    let before = jobs.read_backup_settings().await?;
    let identity_changed = before.endpoint != input.endpoint
        || before.region != input.region
        || before.bucket != input.bucket
        || before.path_style != input.path_style;
    if identity_changed && !jobs.list_backups(None, 1).await?.is_empty() {
        return Err(AdminError::Conflict(
            "endpoint, region, bucket and path style are locked once backup records exist".to_owned(),
        ));
    }
    let credentials_action = match &credentials {
        SecretsChange::Keep => "kept",
        SecretsChange::Replace(_) => "replaced",
        SecretsChange::Clear => "cleared",
    };
    let update = BackupSettingsUpdate {
        enabled: input.enabled,
        endpoint: input.endpoint.clone(),
        region: input.region.clone(),
        bucket: input.bucket.clone(),
        path_style: input.path_style,
        prefix: input.prefix.clone(),
        credentials,
        schedule_cron: input.schedule_cron.clone(),
        retention_count: input.retention_count,
        retention_days: input.retention_days,
    };
    let mut tx = uow.begin().await?;
    tx.update_backup_settings(&update).await?;
    let details = json!({
        "enabled": input.enabled,
        "endpoint": input.endpoint,
        "bucket": input.bucket,
        "stored_keys": credentials_action,
        "schedule_cron": input.schedule_cron,
    });
    tx.commit(AuditEntry::new(actor, "backup_settings.update", "backup_settings", None, details)).await?;
    Ok(jobs.read_backup_settings().await?)
}
