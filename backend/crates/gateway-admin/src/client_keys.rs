//! Client key use cases. The plaintext key exists only in the return value of `create`.

use gateway_core::domain::{ClientKeyId, ClientKeyLimits, ClientKeySecret, GroupId, KeyScope};
use rand::Rng;
use serde_json::json;
use time::OffsetDateTime;

use crate::audit::{AuditActor, AuditEntry};
use crate::error::AdminError;
use crate::ports::UnitOfWork;
use crate::ports::admin_changes::{ClientKeyChanges, NewClientKey};

/// What a new key may do.
#[derive(Debug, Clone, Default)]
pub struct KeySpec {
    pub name: String,
    pub expires_at: Option<OffsetDateTime>,
    pub limits: ClientKeyLimits,
    pub allowed_models: Option<Vec<String>>,
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
    let name = spec.name.trim().to_owned();
    if name.is_empty() || name.len() > 128 {
        return Err(AdminError::invalid("name", "must be 1 to 128 characters"));
    }
    if spec.allowed_models.as_ref().is_some_and(Vec::is_empty) {
        return Err(AdminError::invalid("allowedModels", "must list at least one model, or be omitted for all"));
    }
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
            },
        })
        .await?;
    if !spec.groups.is_empty() {
        tx.replace_client_key_groups(id, &spec.groups).await?;
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
