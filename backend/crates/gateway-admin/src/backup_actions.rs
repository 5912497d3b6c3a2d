//! The admin's backup actions — run now, verify, delete, download link — each audited. The
//! download link needs step-up (the admin's password): it hands out the whole database.
//! Audit rows are written by a unit of work's commit (which also bumps `config_revision`).

use serde_json::json;
use time::OffsetDateTime;

use crate::audit::{AuditActor, AuditEntry};
use crate::auth::api_keys::{StepUp, require_password};
use crate::backup::{BackupId, BackupRecord};
use crate::backup_daemon::BackupDaemon;
use crate::error::AdminError;
use crate::ports::UnitOfWork;

async fn audit(uow: &dyn UnitOfWork, entry: AuditEntry) -> Result<(), AdminError> {
    uow.begin().await?.commit(entry).await?;
    Ok(())
}

fn entry(actor: AuditActor, action: &str, id: BackupId, details: serde_json::Value) -> AuditEntry {
    AuditEntry::new(actor, action, "backup", Some(id.to_string()), details)
}

/// Queues a manual backup; the daemon runs it on its next tick.
pub async fn run_backup(
    uow: &dyn UnitOfWork,
    daemon: &BackupDaemon,
    actor: AuditActor,
    expires_in_days: Option<u32>,
) -> Result<BackupRecord, AdminError> {
    if expires_in_days.is_some_and(|d| d == 0 || d > 36_500) {
        return Err(AdminError::InvalidFields(vec![crate::error::FieldError {
            field: "expiresInDays".into(),
            message: "must be between 1 and 36500".into(),
        }]));
    }
    let record = daemon.enqueue_manual(expires_in_days, OffsetDateTime::now_utc()).await?;
    audit(uow, entry(actor, "backup.run", record.id, json!({ "expires_in_days": expires_in_days }))).await?;
    Ok(record)
}

/// Restores the backup into a scratch database now and compares row counts.
pub async fn verify_backup(
    uow: &dyn UnitOfWork,
    daemon: &BackupDaemon,
    actor: AuditActor,
    id: BackupId,
) -> Result<BackupRecord, AdminError> {
    let record = daemon.verify(id, OffsetDateTime::now_utc()).await?;
    let details = json!({ "verified": record.is_verified(), "error": record.verify_error });
    audit(uow, entry(actor, "backup.verify", id, details)).await?;
    Ok(record)
}

pub async fn delete_backup(
    uow: &dyn UnitOfWork,
    daemon: &BackupDaemon,
    actor: AuditActor,
    id: BackupId,
) -> Result<(), AdminError> {
    daemon.delete(id, OffsetDateTime::now_utc()).await?;
    audit(uow, entry(actor, "backup.delete", id, json!({}))).await
}

/// A 5-minute presigned link, after step-up. The link itself is never audited.
pub async fn backup_download_link(
    uow: &dyn UnitOfWork,
    daemon: &BackupDaemon,
    step_up: &StepUp<'_>,
    password: &str,
    id: BackupId,
) -> Result<String, AdminError> {
    require_password(step_up, password).await?;
    let link = daemon.download_link(id).await?;
    let ttl = crate::backup_daemon::DOWNLOAD_LINK_TTL.as_secs();
    audit(uow, entry(step_up.principal.actor(), "backup.download_link", id, json!({ "ttl_seconds": ttl }))).await?;
    Ok(link)
}
