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

pub async fn create_key(uow: &dyn UnitOfWork, actor: AuditActor, spec: KeySpec) -> Result<CreatedKey, AdminError> {
    let name = spec.name.trim().to_owned();
    if name.is_empty() || name.len() > 128 {
        return Err(AdminError::invalid("name", "must be 1 to 128 characters"));
    }
    if spec.allowed_models.as_ref().is_some_and(Vec::is_empty) {
        return Err(AdminError::invalid("allowedModels", "must list at least one model, or be omitted for all"));
    }
    let secret = generate_key();
    let mut tx = uow.begin().await?;
    let id = tx
        .create_client_key(&NewClientKey {
            key_hash: secret.hash(),
            key_prefix: secret.display_prefix(),
            changes: ClientKeyChanges {
                name: name.clone(),
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
    let scope = KeyScope::from_group_ids(spec.groups.clone());
    let details = json!({
        "name": name,
        "prefix": secret.display_prefix(),
        "routing_scope": scope.name(),
        "groups": spec.groups.iter().map(|g| g.0).collect::<Vec<_>>(),
        "limits": spec.limits,
        "allowed_models": spec.allowed_models,
    });
    tx.commit(AuditEntry::new(actor, "client_key.create", "client_key", Some(id.0.to_string()), details)).await?;
    Ok(CreatedKey { id, secret })
}
