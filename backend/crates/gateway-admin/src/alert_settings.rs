//! Alert webhooks and rules managed in the admin API (decision 0284): create, edit and delete
//! webhooks (URL through the SSRF guard, secret write-only), edit rules, and a test delivery.
//! Every change is one audited unit of work; the secret never reaches the audit row.
//!
//! Webhooks of the configuration file (`alerts.webhooks`) keep working next to these: they are
//! listed read-only (`source: config`), their names are reserved, and the rules stored here
//! apply to both.

pub mod model;
pub mod test_delivery;

use serde_json::json;

use gateway_core::alerts::AlertKind;

use crate::audit::{AuditActor, AuditEntry};
use crate::error::{AdminError, FieldError};
use crate::ports::{AlertSettings, UnitOfWork};
use crate::url_guard::UrlGuard;

pub use model::{AlertRule, AlertWebhookId, AlertWebhookInput, AlertWebhookWrite, StoredWebhook};

/// Shortest webhook secret (HMAC-SHA256 key), as for configured webhooks.
pub const MIN_SECRET_LEN: usize = 16;
pub const MAX_SECRET_LEN: usize = 256;

/// Checks `input`; `reserved` are the names of configured webhooks.
async fn validate(
    input: &AlertWebhookInput,
    guard: &UrlGuard,
    reserved: &[String],
    creating: bool,
) -> Result<AlertWebhookWrite, AdminError> {
    let mut fields = Vec::new();
    let mut bad = |field: &str, message: String| fields.push(FieldError { field: field.to_owned(), message });
    let name = input.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 100 {
        bad("name", "must be 1 to 100 characters".to_owned());
    } else if reserved.iter().any(|r| r.eq_ignore_ascii_case(&name)) {
        bad("name", "is the name of a webhook of the configuration file".to_owned());
    }
    if input.url.len() > 2048 {
        bad("url", "must be at most 2048 bytes".to_owned());
    } else if let Err(refusal) = guard.check(&input.url).await {
        bad("url", refusal.to_string());
    }
    match &input.secret {
        None if creating => bad("secret", "is required".to_owned()),
        Some(secret) if !(MIN_SECRET_LEN..=MAX_SECRET_LEN).contains(&secret.len()) => {
            bad("secret", format!("must be {MIN_SECRET_LEN} to {MAX_SECRET_LEN} bytes"))
        }
        _ => {}
    }
    let mut kinds = Vec::new();
    for kind in &input.kinds {
        match kind.parse::<AlertKind>() {
            Ok(kind) if !kinds.contains(&kind) => kinds.push(kind),
            Ok(_) => {}
            Err(_) => bad("kinds", format!("unknown alert kind `{kind}`")),
        }
    }
    if !fields.is_empty() {
        return Err(AdminError::InvalidFields(fields));
    }
    Ok(AlertWebhookWrite {
        name,
        url: input.url.clone(),
        kinds,
        enabled: input.enabled,
        secret: input.secret.clone().map(Into::into),
    })
}

fn audit_details(write: &AlertWebhookWrite) -> serde_json::Value {
    json!({
        "name": write.name,
        "url": model::shown_url(&write.url),
        "kinds": write.kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
        "enabled": write.enabled,
        "secret_change": if write.secret.is_some() { "replaced" } else { "kept" },
    })
}

pub async fn create_webhook(
    uow: &dyn UnitOfWork,
    settings: &dyn AlertSettings,
    guard: &UrlGuard,
    reserved: &[String],
    actor: AuditActor,
    input: AlertWebhookInput,
) -> Result<StoredWebhook, AdminError> {
    let write = validate(&input, guard, reserved, true).await?;
    let mut tx = uow.begin().await?;
    let id = tx.create_alert_webhook(&write).await.map_err(name_taken)?;
    let entry =
        AuditEntry::new(actor, "alert_webhook.create", "alert_webhook", Some(id.0.to_string()), audit_details(&write));
    tx.commit(entry).await?;
    Ok(settings.get_alert_webhook(id).await?)
}

/// Replaces name, URL, kinds and `enabled`; the secret only when given.
pub async fn update_webhook(
    uow: &dyn UnitOfWork,
    settings: &dyn AlertSettings,
    guard: &UrlGuard,
    reserved: &[String],
    actor: AuditActor,
    id: AlertWebhookId,
    input: AlertWebhookInput,
) -> Result<StoredWebhook, AdminError> {
    let write = validate(&input, guard, reserved, false).await?;
    let mut tx = uow.begin().await?;
    tx.update_alert_webhook(id, &write).await.map_err(name_taken)?;
    let entry =
        AuditEntry::new(actor, "alert_webhook.update", "alert_webhook", Some(id.0.to_string()), audit_details(&write));
    tx.commit(entry).await?;
    Ok(settings.get_alert_webhook(id).await?)
}

pub async fn delete_webhook(uow: &dyn UnitOfWork, actor: AuditActor, id: AlertWebhookId) -> Result<(), AdminError> {
    let mut tx = uow.begin().await?;
    tx.delete_alert_webhook(id).await?;
    tx.commit(AuditEntry::new(actor, "alert_webhook.delete", "alert_webhook", Some(id.0.to_string()), json!({})))
        .await?;
    Ok(())
}

/// Replaces one rule (its kind names it).
pub async fn update_rule(uow: &dyn UnitOfWork, actor: AuditActor, rule: AlertRule) -> Result<AlertRule, AdminError> {
    let mut fields = Vec::new();
    if !(0.0..=100.0).contains(&rule.threshold_percent) || rule.threshold_percent.is_nan() {
        fields.push(FieldError { field: "thresholdPercent".into(), message: "must be between 0 and 100".into() });
    }
    if !(60..=86_400).contains(&rule.window_seconds) {
        fields.push(FieldError { field: "windowSeconds".into(), message: "must be between 60 and 86400".into() });
    }
    if rule.min_requests == 0 || rule.min_requests > i32::MAX as u32 {
        fields.push(FieldError { field: "minRequests".into(), message: "must be at least 1".into() });
    }
    if !fields.is_empty() {
        return Err(AdminError::InvalidFields(fields));
    }
    let mut tx = uow.begin().await?;
    tx.update_alert_rule(&rule).await?;
    let details = json!({
        "enabled": rule.enabled,
        "threshold_percent": rule.threshold_percent,
        "window_seconds": rule.window_seconds,
        "min_requests": rule.min_requests,
    });
    tx.commit(AuditEntry::new(actor, "alert_rule.update", "alert_rule", Some(rule.kind.as_str().to_owned()), details))
        .await?;
    Ok(rule)
}

fn name_taken(error: gateway_core::ports::StorageError) -> AdminError {
    match error {
        gateway_core::ports::StorageError::Conflict { .. } => {
            AdminError::invalid("name", "another webhook has this name")
        }
        other => other.into(),
    }
}
