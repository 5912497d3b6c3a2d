//! Admin API keys (`sb-admin-…`, one per admin user, stored as SHA-256), password step-ups and
//! password changes: security mutations, each one unit of work with its audit row.

use serde_json::json;

use time::OffsetDateTime;

use crate::admin_user::{AdminApiKey, AdminApiKeySecret, AdminUserId, AdminUserRecord, admin_api_key_hash};
use crate::audit::AuditEntry;
use crate::auth::password_guard::{ClientOrigin, PasswordGuard};
use crate::auth::standing::{AdminStandings, credential_stamp};
use crate::auth::{AdminPrincipal, AuthMethod, random_token, session_token_hash};
use crate::error::AdminError;
use crate::passwords::check_password_policy;
use crate::ports::{AdminSession, AdminSessions, AdminUsers, UnitOfWork};

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

/// What a step-up needs: who asks, from where, and the guard that counts the attempt.
pub struct StepUp<'a> {
    pub users: &'a dyn AdminUsers,
    pub guard: &'a PasswordGuard,
    pub principal: &'a AdminPrincipal,
    pub origin: &'a ClientOrigin,
}

/// Step-up: whether `password` is the principal's current password (always `true` for an
/// admin without one). Counted against the login limits like a login: a wrong password is a
/// failed attempt, and at a limit the check is refused with `rate_limited`.
pub async fn confirm_password(step_up: &StepUp<'_>, password: &str) -> Result<bool, AdminError> {
    let user = step_up.users.get_admin_user(step_up.principal.user_id).await?;
    let Some(hash) = &user.password_hash else { return Ok(true) };
    let checked = step_up.guard.check(step_up.origin, &user.username, Some(hash), password).await?;
    if !checked.password_ok {
        tracing::info!(user = user.id.0, "admin step-up: wrong password");
        return Ok(false);
    }
    checked.succeeded().await;
    Ok(true)
}

/// Step-up for the actions that answer a wrong password with `403 forbidden`.
pub(crate) async fn require_password(step_up: &StepUp<'_>, password: &str) -> Result<(), AdminError> {
    if confirm_password(step_up, password).await? {
        Ok(())
    } else {
        Err(AdminError::Forbidden("the current password is wrong".to_owned()))
    }
}

/// Creates (or replaces) the principal's API key; the plaintext is returned once.
pub async fn create_api_key(
    uow: &dyn UnitOfWork,
    step_up: &StepUp<'_>,
    password: &str,
) -> Result<(AdminApiKeySecret, AdminApiKey), AdminError> {
    require_password(step_up, password).await?;
    let principal = step_up.principal;
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

/// A password change: how many other sessions ended, and the session that replaces the
/// changing one (its token goes into the cookie, once).
pub struct PasswordChanged {
    pub revoked_sessions: u32,
    pub session: Option<(String, AdminSession)>,
}

/// Changes the principal's password. The current password is a step-up (counted like a
/// login); the new one is hashed under the same hashing permit. Every session of the admin
/// ends; a cookie session that made the change is replaced by a new one (new token, same CSRF
/// token and absolute expiry) carrying the new credential stamp.
pub async fn change_password(
    uow: &dyn UnitOfWork,
    sessions: &dyn AdminSessions,
    standings: &AdminStandings,
    step_up: &StepUp<'_>,
    current: &str,
    new: &str,
    now: OffsetDateTime,
) -> Result<PasswordChanged, AdminError> {
    check_password_policy("newPassword", new)?;
    let principal = step_up.principal;
    let user = step_up.users.get_admin_user(principal.user_id).await?;
    let checked = step_up.guard.check(step_up.origin, &user.username, user.password_hash.as_ref(), current).await?;
    if user.password_hash.is_some() && !checked.password_ok {
        return Err(AdminError::invalid("currentPassword", "is wrong"));
    }
    let hash = checked.hash(new).await?;
    checked.succeeded().await;
    let mut tx = uow.begin().await?;
    tx.set_admin_password(principal.user_id, &hash).await?;
    let target = Some(principal.user_id.0.to_string());
    tx.commit(AuditEntry::new(principal.actor(), "admin_user.password_change", "admin_user", target, json!({})))
        .await?;
    standings.forget();
    let session = match &principal.method {
        AuthMethod::Session { session_id, .. } => {
            let stamp = credential_stamp(Some(&hash));
            replace_session(sessions, principal.user_id, session_id, stamp, now).await?
        }
        AuthMethod::ApiKey => None,
    };
    let keep = session.as_ref().map(|(_, s)| s.id.as_str());
    let revoked = sessions.revoke_user_sessions(principal.user_id, keep).await?;
    // The replaced session is not one of the "other" sessions.
    let revoked_sessions = if session.is_some() { revoked.saturating_sub(1) } else { revoked };
    Ok(PasswordChanged { revoked_sessions, session })
}

/// A new session in place of `id`: new token and id, `stamp`, created now; CSRF token, idle
/// and absolute expiry carried over. `None` when `id` is gone.
async fn replace_session(
    sessions: &dyn AdminSessions,
    user: AdminUserId,
    id: &str,
    stamp: String,
    now: OffsetDateTime,
) -> Result<Option<(String, AdminSession)>, AdminError> {
    let Some(old) = sessions.list_user_sessions(user, now).await?.into_iter().find(|s| s.id == id) else {
        return Ok(None);
    };
    let token = random_token();
    let hash = session_token_hash(&token);
    let session =
        AdminSession { id: hash.public_id(), created_at: now, last_seen_at: now, credential_stamp: stamp, ..old };
    sessions.create_session(&hash, &session).await?;
    Ok(Some((token, session)))
}
