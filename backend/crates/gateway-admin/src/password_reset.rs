//! An operator's password reset (`switchboard admin reset-password USER`): for an admin who
//! cannot log in. The same change as an admin's own password change — argon2id hash, one unit
//! of work with its audit row — without the current password, and it ends every session of
//! that admin (the operator does not know which ones are legitimate).

use serde_json::json;

use crate::admin_user::AdminUserId;
use crate::audit::{AuditActor, AuditEntry};
use crate::auth::random_token;
use crate::error::AdminError;
use crate::passwords::{check_password_policy, hash_password};
use crate::ports::{AdminSessions, AdminUsers, UnitOfWork};

/// What a reset did.
pub struct PasswordReset {
    pub user_id: AdminUserId,
    /// The generated password when none was given: show it once.
    pub generated: Option<String>,
    /// Sessions ended; `Err` when coordination storage could not be reached (the password is
    /// changed all the same; the sessions then end at their expiry or with the next reset).
    pub sessions_ended: Result<u32, AdminError>,
}

/// Sets `password` (or a generated one) for the admin named `username` (case-insensitive).
pub async fn reset_password(
    uow: &dyn UnitOfWork,
    users: &dyn AdminUsers,
    sessions: &dyn AdminSessions,
    actor: AuditActor,
    username: &str,
    password: Option<&str>,
) -> Result<PasswordReset, AdminError> {
    let user = users
        .find_admin_by_username(username.trim())
        .await?
        .ok_or_else(|| AdminError::NotFound(format!("admin `{}`", username.trim())))?;
    let generated = password.is_none().then(random_token);
    let password = password.or(generated.as_deref()).unwrap_or_default();
    check_password_policy("password", password)?;
    let hash = hash_password(password).await?;
    let mut tx = uow.begin().await?;
    tx.set_admin_password(user.id, &hash).await?;
    let details = json!({"username": user.username, "password_generated": generated.is_some()});
    let target = Some(user.id.0.to_string());
    tx.commit(AuditEntry::new(actor, "admin_user.password_reset", "admin_user", target, details)).await?;
    let sessions_ended = sessions.revoke_user_sessions(user.id, None).await.map_err(AdminError::from);
    Ok(PasswordReset { user_id: user.id, generated, sessions_ended })
}
