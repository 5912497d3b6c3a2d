//! Runtime settings use cases: validated full replacement with an optional expected revision
//! (`If-Match`), one unit of work, the previous values returned for undo.

use serde_json::json;

use gateway_core::domain::{ConfigRevision, RuntimeSettings};

use crate::audit::{AuditActor, AuditEntry};
use crate::error::{AdminError, FieldError};
use crate::ports::{RuntimeSettingsReader, UnitOfWork};

fn range(fields: &mut Vec<FieldError>, field: &str, value: u32, min: u32, max: u32) {
    if !(min..=max).contains(&value) {
        fields.push(FieldError { field: field.to_owned(), message: format!("must be {min} to {max}") });
    }
}

/// Checks every rule the database would refuse, plus alias sanity (no empty names, no alias
/// that maps to itself or into a chain).
pub fn validate_settings(s: &RuntimeSettings) -> Result<(), AdminError> {
    let mut fields = Vec::new();
    range(&mut fields, "defaultAccountConcurrency", s.default_account_concurrency, 1, 10_000);
    range(&mut fields, "requestIntervalMs", s.request_interval_ms, 0, 3_600_000);
    range(&mut fields, "refreshMarginSeconds", s.refresh_margin_seconds, 0, 86_400);
    range(&mut fields, "refreshConcurrency", s.refresh_concurrency, 1, 256);
    range(&mut fields, "requestRetentionDays", s.request_retention_days, 1, 3650);
    range(&mut fields, "opsEventRetentionDays", s.ops_event_retention_days, 1, 3650);
    if s.model_aliases.len() > 500 {
        fields.push(FieldError { field: "modelAliases".into(), message: "at most 500 aliases".into() });
    }
    for (alias, target) in &s.model_aliases {
        let field = format!("modelAliases.{alias}");
        if alias.trim().is_empty() || alias.len() > 256 || target.trim().is_empty() || target.len() > 256 {
            fields.push(FieldError { field, message: "alias and model must be 1 to 256 characters".into() });
        } else if alias == target {
            fields.push(FieldError { field, message: "an alias cannot map to itself".into() });
        } else if s.model_aliases.contains_key(target) {
            fields.push(FieldError {
                field,
                message: format!("maps to `{target}`, which is itself an alias (chains are not followed)"),
            });
        }
    }
    if fields.is_empty() { Ok(()) } else { Err(AdminError::InvalidFields(fields)) }
}

/// Replaces the settings; returns the values before and the new revision.
pub async fn update_settings(
    uow: &dyn UnitOfWork,
    reader: &dyn RuntimeSettingsReader,
    actor: AuditActor,
    expected: Option<ConfigRevision>,
    settings: RuntimeSettings,
) -> Result<(RuntimeSettings, ConfigRevision), AdminError> {
    validate_settings(&settings)?;
    let (current, before) = reader.read_runtime_settings().await?;
    if let Some(expected) = expected
        && expected != current
    {
        return Err(AdminError::RevisionMismatch { current: current.0 });
    }
    let mut changed = serde_json::Map::new();
    let (old, new) = (json!(before), json!(settings));
    if let (Some(old), Some(new)) = (old.as_object(), new.as_object()) {
        for (key, value) in new {
            if old.get(key) != Some(value) {
                changed.insert(key.clone(), json!({"from": old.get(key), "to": value}));
            }
        }
    }
    let mut tx = uow.begin().await?;
    tx.update_runtime_settings(&settings).await?;
    let receipt = tx
        .commit(AuditEntry::new(actor, "settings.update", "runtime_settings", None, serde_json::Value::Object(changed)))
        .await?;
    Ok((before, receipt.config_revision))
}
