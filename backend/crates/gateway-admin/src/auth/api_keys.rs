//! Admin API keys (`sb-admin-…`, one per admin user, stored as SHA-256) and password changes:
//! security mutations, each one unit of work with its audit row.

use serde_json::json;

use crate::admin_user::{AdminApiKey, AdminApiKeySecret, AdminUserRecord, admin_api_key_hash};
use crate::audit::AuditEntry;
use crate::auth::{AdminPrincipal, AuthMethod};
use crate::error::AdminError;
use crate::passwords::{check_password_policy, hash_password, verify_password};
use crate::ports::{AdminSessions, AdminUsers, UnitOfWork};

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

pub fn generate_admin_api_key() -> AdminApiKeySecret {
    let body: String = (0..40).map(|_| char::from(ALPHABET[rand::random_range(0..ALPHABET.len())])).collect();
    AdminApiKeySecret::new(format!("sb-admin-{body}"))
}

/// The enabled user an API key belongs to.
pub async fn authenticate_api_key(
    users: &dyn AdminUsers,
    plaintext: &str,
) -> Result<Option<AdminUserRecord>, AdminError> {
    if !plaintext.starts_with("sb-admin-") {
        return Ok(None);
    }
    Ok(users.find_admin_by_api_key(&admin_api_key_hash(plaintext)).await?.filter(|u| u.enabled))
}

/// Step-up: the principal's current password, when the user has one.
pub(crate) async fn confirm_password(
    users: &dyn AdminUsers,
    principal: &AdminPrincipal,
    password: &str,
) -> Result<(), AdminError> {
    let user = users.get_admin_user(principal.user_id).await?;
    match &user.password_hash {
        Some(hash) if verify_password(password, Some(hash)).await => Ok(()),
        Some(_) => Err(AdminError::Forbidden("the current password is wrong".to_owned())),
        None => Ok(()),
    }
}

/// Creates (or replaces) the principal's API key; the plaintext is returned once.
pub async fn create_api_key(
    uow: &dyn UnitOfWork,
    users: &dyn AdminUsers,
    principal: &AdminPrincipal,
    password: &str,
) -> Result<(AdminApiKeySecret, AdminApiKey), AdminError> {
    confirm_password(users, principal, password).await?;
    let secret = generate_admin_api_key();
    let key = AdminApiKey { hash: secret.hash(), prefix: secret.display_prefix() };
    let mut tx = uow.begin().await?;
    tx.set_admin_api_key(principal.user_id, Some(&key)).await?;
    let details = json!({"prefix": key.prefix});
    let target = Some(principal.user_id.0.to_string());
    tx.commit(AuditEntry::new(principal.actor(), "admin_user.api_key_create", "admin_user", target, details)).await?;
    Ok((secret, key))
}

pub async fn delete_api_key(uow: &dyn UnitOfWork, principal: &AdminPrincipal) -> Result<(), AdminError> {
    let mut tx = uow.begin().await?;
    tx.set_admin_api_key(principal.user_id, None).await?;
    let target = Some(principal.user_id.0.to_string());
    tx.commit(AuditEntry::new(principal.actor(), "admin_user.api_key_delete", "admin_user", target, json!({}))).await?;
    Ok(())
}

/// Changes the principal's password and revokes their other sessions.
pub async fn change_password(
    uow: &dyn UnitOfWork,
    users: &dyn AdminUsers,
    sessions: &dyn AdminSessions,
    principal: &AdminPrincipal,
    current: &str,
    new: &str,
) -> Result<u32, AdminError> {
    check_password_policy("newPassword", new)?;
    let user = users.get_admin_user(principal.user_id).await?;
    if user.password_hash.is_some() && !verify_password(current, user.password_hash.as_ref()).await {
        return Err(AdminError::invalid("currentPassword", "is wrong"));
    }
    let hash = hash_password(new).await?;
    let mut tx = uow.begin().await?;
    tx.set_admin_password(principal.user_id, &hash).await?;
    let target = Some(principal.user_id.0.to_string());
    tx.commit(AuditEntry::new(principal.actor(), "admin_user.password_change", "admin_user", target, json!({})))
        .await?;
    let keep = match &principal.method {
        AuthMethod::Session { session_id, .. } => Some(session_id.as_str()),
        AuthMethod::ApiKey => None,
    };
    Ok(sessions.revoke_user_sessions(principal.user_id, keep).await?)
}
