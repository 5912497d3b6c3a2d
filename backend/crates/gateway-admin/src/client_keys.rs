//! Client key use cases. The plaintext key exists only in the return value of `create`.

use gateway_core::domain::{
    ClientKeyId, ClientKeyLimits, ClientKeyRecord, ClientKeySecret, GroupId, KeyScope, ServiceTierPolicy,
};
use rand::Rng;
use serde_json::json;
use time::OffsetDateTime;

use crate::audit::{AuditActor, AuditEntry};
use crate::error::AdminError;
use crate::ports::admin_changes::{ClientKeyChanges, NewClientKey};
use crate::ports::{ClientKeyDirectory, UnitOfWork};

/// What a new key may do.
#[derive(Debug, Clone, Default)]
pub struct KeySpec {
    pub name: String,
    pub expires_at: Option<OffsetDateTime>,
    pub limits: ClientKeyLimits,
    pub allowed_models: Option<Vec<String>>,
    /// What happens to a request's `service_tier` (default `allow`).
    pub service_tier_policy: ServiceTierPolicy,
    /// Empty = every account.
    pub groups: Vec<GroupId>,
}

/// A created key: its id and the plaintext, shown once.
pub struct CreatedKey {
    pub id: ClientKeyId,
    pub secret: ClientKeySecret,
}

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// `sk-sb-` followed by 40 random base62 characters (≈238 bits).
pub fn generate_key() -> ClientKeySecret {
    let mut rng = rand::rng();
    let body: String = (0..40).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect();
    ClientKeySecret::new(format!("sk-sb-{body}"))
}

fn validate(spec: &KeySpec) -> Result<String, AdminError> {
    let name = validate_name(&spec.name)?;
    validate_limits(&spec.limits, spec.allowed_models.as_deref())?;
    Ok(name)
}

/// Inserts one key inside an open unit of work.
async fn insert(
    tx: &mut Box<dyn crate::ports::AdminTransaction>,
    name: String,
    spec: &KeySpec,
) -> Result<CreatedKey, AdminError> {
    let secret = generate_key();
    let id = tx
        .create_client_key(&NewClientKey {
            key_hash: secret.hash(),
            key_prefix: secret.display_prefix(),
            changes: ClientKeyChanges {
                name,
                enabled: true,
                expires_at: spec.expires_at,
                limits: spec.limits.clone(),
                allowed_models: spec.allowed_models.clone(),
                service_tier_policy: spec.service_tier_policy,
            },
        })
        .await?;
    if !spec.groups.is_empty() {
        tx.replace_client_key_groups(id, &spec.groups).await.map_err(|e| match AdminError::from(e) {
            AdminError::Invalid { .. } => AdminError::invalid("groupIds", "a group does not exist"),
            other => other,
        })?;
    }
    Ok(CreatedKey { id, secret })
}

fn details(spec: &KeySpec) -> serde_json::Value {
    let scope = KeyScope::from_group_ids(spec.groups.clone());
    json!({
        "routing_scope": scope.name(),
        "groups": spec.groups.iter().map(|g| g.0).collect::<Vec<_>>(),
        "limits": spec.limits,
        "allowed_models": spec.allowed_models,
        "service_tier_policy": spec.service_tier_policy,
    })
}

pub async fn create_key(uow: &dyn UnitOfWork, actor: AuditActor, spec: KeySpec) -> Result<CreatedKey, AdminError> {
    let name = validate(&spec)?;
    let mut tx = uow.begin().await?;
    let created = insert(&mut tx, name.clone(), &spec).await?;
    let mut details = details(&spec);
    details["name"] = json!(name);
    details["prefix"] = json!(created.secret.display_prefix());
    let target = Some(created.id.0.to_string());
    tx.commit(AuditEntry::new(actor, "client_key.create", "client_key", target, details)).await?;
    Ok(created)
}

/// Creates `count` keys named `NAME-1` … `NAME-count` with the same limits, in one unit of work
/// with one audit row (bulk issuance: classrooms, load tests).
pub async fn create_keys(
    uow: &dyn UnitOfWork,
    actor: AuditActor,
    spec: KeySpec,
    count: u32,
) -> Result<Vec<CreatedKey>, AdminError> {
    let name = validate(&spec)?;
    if count == 0 || count > 1_000_000 {
        return Err(AdminError::invalid("count", "must be between 1 and 1000000"));
    }
    let mut tx = uow.begin().await?;
    let mut created = Vec::with_capacity(count as usize);
    for n in 1..=count {
        created.push(insert(&mut tx, format!("{name}-{n}"), &spec).await?);
    }
    let mut details = details(&spec);
    details["name"] = json!(name);
    details["count"] = json!(count);
    details["first_id"] = json!(created.first().map(|k| k.id.0));
    tx.commit(AuditEntry::new(actor, "client_key.create_bulk", "client_key", None, details)).await?;
    Ok(created)
}

fn validate_name(name: &str) -> Result<String, AdminError> {
    let name = name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AdminError::invalid("name", "must be 1 to 100 characters"));
    }
    Ok(name)
}

fn validate_limits(limits: &ClientKeyLimits, allowed_models: Option<&[String]>) -> Result<(), AdminError> {
    let mut fields = Vec::new();
    let mut check = |field: &str, ok: bool| {
        if !ok {
            fields.push(crate::error::FieldError { field: field.to_owned(), message: "must be at least 1".to_owned() });
        }
    };
    check("limits.maxConcurrency", limits.max_concurrency.is_none_or(|v| v >= 1 && v <= i32::MAX as u32));
    check("limits.requestsPerMinute", limits.requests_per_minute.is_none_or(|v| v >= 1 && v <= i32::MAX as u32));
    check("limits.dailyTokenBudget", limits.daily_token_budget.is_none_or(|v| v >= 1 && v <= i64::MAX as u64));
    check("limits.monthlyTokenBudget", limits.monthly_token_budget.is_none_or(|v| v >= 1 && v <= i64::MAX as u64));
    check("limits.dailyCostBudgetNanoUsd", limits.daily_cost_budget.is_none_or(|v| v.0 >= 1));
    check("limits.monthlyCostBudgetNanoUsd", limits.monthly_cost_budget.is_none_or(|v| v.0 >= 1));
    if let Some(models) = allowed_models {
        if models.is_empty() {
            fields.push(crate::error::FieldError {
                field: "allowedModels".to_owned(),
                message: "must list at least one model, or be null for all".to_owned(),
            });
        } else if models.iter().any(|m| m.trim().is_empty() || m.len() > 256) {
            fields.push(crate::error::FieldError {
                field: "allowedModels".to_owned(),
                message: "model names must be 1 to 256 characters".to_owned(),
            });
        }
    }
    if fields.is_empty() { Ok(()) } else { Err(AdminError::InvalidFields(fields)) }
}

/// Fields to change; `None` keeps the stored value (`expires_at: Some(None)` clears it).
#[derive(Debug, Clone, Default)]
pub struct KeyPatch {
    pub name: Option<String>,
    pub enabled: Option<bool>,
    pub expires_at: Option<Option<OffsetDateTime>>,
    pub limits: Option<ClientKeyLimits>,
    pub allowed_models: Option<Option<Vec<String>>>,
    pub service_tier_policy: Option<ServiceTierPolicy>,
    /// Empty = every account.
    pub groups: Option<Vec<GroupId>>,
}

fn scope_text(scope: &KeyScope) -> String {
    match scope {
        KeyScope::AllAccounts => "all".to_owned(),
        KeyScope::Groups(ids) => {
            format!("groups[{}]", ids.iter().map(|g| g.0.to_string()).collect::<Vec<_>>().join(","))
        }
    }
}

/// Applies `patch`; returns the key before the change (for undo). Scope changes are recorded
/// in the audit row as `routing_scope: groups -> all`.
pub async fn update_key(
    uow: &dyn UnitOfWork,
    keys: &dyn ClientKeyDirectory,
    actor: AuditActor,
    id: ClientKeyId,
    patch: KeyPatch,
) -> Result<ClientKeyRecord, AdminError> {
    let before = keys.get_client_key(id).await?;
    let name = validate_name(patch.name.as_deref().unwrap_or(&before.name))?;
    let limits = patch.limits.clone().unwrap_or_else(|| before.limits.clone());
    let allowed_models = patch.allowed_models.clone().unwrap_or_else(|| before.allowed_models.clone());
    validate_limits(&limits, allowed_models.as_deref())?;
    let changes = ClientKeyChanges {
        name,
        enabled: patch.enabled.unwrap_or(before.enabled),
        expires_at: patch.expires_at.unwrap_or(before.expires_at),
        limits,
        allowed_models,
        service_tier_policy: patch.service_tier_policy.unwrap_or(before.service_tier_policy),
    };
    let mut tx = uow.begin().await?;
    tx.update_client_key(id, &changes).await?;
    let mut details = json!({
        "name": changes.name,
        "enabled": format!("{} -> {}", before.enabled, changes.enabled),
        "limits": changes.limits,
        "allowed_models": changes.allowed_models,
        "service_tier_policy": format!("{} -> {}", before.service_tier_policy, changes.service_tier_policy),
    });
    if let Some(groups) = &patch.groups {
        let mut groups = groups.clone();
        groups.sort();
        groups.dedup();
        let previous = tx.replace_client_key_groups(id, &groups).await.map_err(|e| match AdminError::from(e) {
            AdminError::Invalid { .. } => AdminError::invalid("groupIds", "a group does not exist"),
            other => other,
        })?;
        let after = KeyScope::from_group_ids(groups);
        details["routing_scope"] = json!(format!("{} -> {}", previous.name(), after.name()));
        details["groups"] = json!(format!("{} -> {}", scope_text(&previous), scope_text(&after)));
    }
    tx.commit(AuditEntry::new(actor, "client_key.update", "client_key", Some(id.0.to_string()), details)).await?;
    Ok(before)
}

pub async fn delete_key(
    uow: &dyn UnitOfWork,
    keys: &dyn ClientKeyDirectory,
    actor: AuditActor,
    id: ClientKeyId,
) -> Result<(), AdminError> {
    let key = keys.get_client_key(id).await?;
    let mut tx = uow.begin().await?;
    tx.delete_client_key(id).await?;
    let details = json!({"name": key.name, "prefix": key.key_prefix, "routing_scope": key.scope.name()});
    tx.commit(AuditEntry::new(actor, "client_key.delete", "client_key", Some(id.0.to_string()), details)).await?;
    Ok(())
}
