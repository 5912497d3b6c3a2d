//! The first administrator: created at start when `admin_users` is empty, from the configured
//! username/password, or with a generated password that the caller prints once.

use serde_json::json;

use crate::admin_user::NewAdminUser;
use crate::audit::{AuditActor, AuditEntry};
use crate::auth::random_token;
use crate::error::AdminError;
use crate::passwords::{check_password_policy, hash_password};
use crate::ports::{AdminUsers, UnitOfWork};

/// What bootstrapping did.
pub struct BootstrapOutcome {
    pub username: String,
    /// Set when no password was configured: print it once, it is stored only hashed.
    pub generated_password: Option<String>,
}

/// Creates the first admin if there is none; `None` when admins exist (or another replica won
/// the race).
pub async fn bootstrap_admin(
    users: &dyn AdminUsers,
    uow: &dyn UnitOfWork,
    username: &str,
    password: Option<&str>,
) -> Result<Option<BootstrapOutcome>, AdminError> {
    if users.count_admin_users().await? > 0 {
        return Ok(None);
    }
    let username = username.trim();
    if username.is_empty() || username.chars().count() > 100 {
        return Err(AdminError::invalid("admin.bootstrap_username", "must be 1 to 100 characters"));
    }
    let generated = password.is_none().then(random_token);
    let password = password.or(generated.as_deref()).unwrap_or_default();
    check_password_policy("admin.bootstrap_password", password)?;
    let hash = hash_password(password).await?;
    let mut tx = uow.begin().await?;
    let created =
        tx.create_admin_user(&NewAdminUser { username: username.to_owned(), password_hash: Some(hash) }).await;
    let id = match created {
        Ok(id) => id,
        Err(e) if e.kind() == gateway_core::ports::StorageErrorKind::Conflict => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let actor = AuditActor { user_id: None, name: "bootstrap".to_owned() };
    let details = json!({"username": username, "password_generated": generated.is_some()});
    tx.commit(AuditEntry::new(actor, "admin_user.create", "admin_user", Some(id.0.to_string()), details)).await?;
    Ok(Some(BootstrapOutcome { username: username.to_owned(), generated_password: generated }))
}
