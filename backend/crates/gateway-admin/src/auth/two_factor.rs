//! The optional TOTP second factor of an admin: enroll (step-up with the password; the secret
//! is shown once, as an `otpauth://` URI), confirm with a first code (TOTP is on from then, and
//! the admin's other sessions are revoked), disable (password and a current code, counted
//! against the login limits). Each change is one unit of work with its audit row; the secret
//! is sealed by the store and never appears in an audit row, a log line or a later response.

use std::time::Duration;

use serde_json::json;
use time::OffsetDateTime;

use crate::admin_user::{TotpChange, TotpSecret};
use crate::audit::AuditEntry;
use crate::auth::api_keys::{StepUp, require_password};
use crate::auth::password_guard::{ClientOrigin, PasswordGuard};
use crate::auth::totp::{self, DRIFT_STEPS, STEP_SECONDS};
use crate::auth::{AdminPrincipal, AuthMethod};
use crate::error::AdminError;
use crate::ports::{AdminSessions, AdminUsers, LoginThrottle, UnitOfWork};

/// The ports the second-factor use cases need.
pub struct TwoFactorPorts<'a> {
    pub uow: &'a dyn UnitOfWork,
    pub users: &'a dyn AdminUsers,
    pub sessions: &'a dyn AdminSessions,
    /// Counts password and code attempts (the login limits) and keeps the used-code markers.
    pub guard: &'a PasswordGuard,
}

/// A started enrollment: the secret and its provisioning URI, returned once.
pub struct TotpEnrollment {
    pub secret: TotpSecret,
    pub otpauth_uri: String,
}

/// Where a code's step is marked used: longer than the window in which it is accepted.
fn used_step_ttl() -> Duration {
    let seconds = u64::try_from((2 * DRIFT_STEPS + 2) * STEP_SECONDS).unwrap_or(120);
    Duration::from_secs(seconds)
}

/// Checks `code` against `secret` at `now` and marks its step used for this user: `None` when
/// the code is wrong or was already used.
pub async fn accept_code(
    throttle: &dyn LoginThrottle,
    user: crate::admin_user::AdminUserId,
    secret: &TotpSecret,
    code: &str,
    now: OffsetDateTime,
) -> Result<Option<i64>, AdminError> {
    let Some(step) = totp::matching_step(secret, code, now) else { return Ok(None) };
    let fresh = throttle.claim_once(&format!("totp:{}:{step}", user.0), used_step_ttl()).await?;
    Ok(fresh.then_some(step))
}

fn audit(principal: &AdminPrincipal, action: &str) -> AuditEntry {
    let target = Some(principal.user_id.0.to_string());
    AuditEntry::new(principal.actor(), action, "admin_user", target, json!({}))
}

/// Starts (or restarts) an enrollment; refused while TOTP is enabled.
pub async fn enroll_totp(
    ports: &TwoFactorPorts<'_>,
    principal: &AdminPrincipal,
    origin: &ClientOrigin,
    password: &str,
) -> Result<TotpEnrollment, AdminError> {
    let (uow, users) = (ports.uow, ports.users);
    require_password(&StepUp { users, guard: ports.guard, principal, origin }, password).await?;
    let user = users.get_admin_user(principal.user_id).await?;
    if user.totp_enabled {
        return Err(AdminError::Conflict("TOTP is already enabled; disable it first".to_owned()));
    }
    let secret = totp::generate_secret();
    let mut tx = uow.begin().await?;
    tx.set_admin_totp(principal.user_id, TotpChange::Pending(&secret)).await?;
    tx.commit(audit(principal, "admin_user.totp_enroll")).await?;
    let otpauth_uri = totp::otpauth_uri(&secret, &user.username);
    Ok(TotpEnrollment { secret, otpauth_uri })
}

/// Confirms the pending enrollment with a current code; returns how many other sessions of
/// the admin were revoked.
pub async fn confirm_totp(
    ports: &TwoFactorPorts<'_>,
    principal: &AdminPrincipal,
    code: &str,
    now: OffsetDateTime,
) -> Result<u32, AdminError> {
    let (uow, users, sessions, throttle) = (ports.uow, ports.users, ports.sessions, ports.guard.throttle());
    let user = users.get_admin_user(principal.user_id).await?;
    if user.totp_enabled {
        return Err(AdminError::Conflict("TOTP is already enabled".to_owned()));
    }
    let secret = users
        .admin_totp_secret(principal.user_id)
        .await?
        .ok_or_else(|| AdminError::Conflict("no TOTP enrollment is pending; enroll first".to_owned()))?;
    if totp::normalise_code(code).is_none() {
        return Err(AdminError::invalid("code", "must be 6 digits"));
    }
    if accept_code(throttle, principal.user_id, &secret, code, now).await?.is_none() {
        return Err(AdminError::invalid("code", "is wrong or was already used"));
    }
    let mut tx = uow.begin().await?;
    tx.set_admin_totp(principal.user_id, TotpChange::Enable(&secret)).await?;
    tx.commit(audit(principal, "admin_user.totp_enable")).await?;
    let keep = match &principal.method {
        AuthMethod::Session { session_id, .. } => Some(session_id.as_str()),
        AuthMethod::ApiKey => None,
    };
    Ok(sessions.revoke_user_sessions(principal.user_id, keep).await?)
}

/// Disables TOTP (or drops a pending enrollment). Needs the password and a current code; the
/// attempt is counted against the login limits (refused at a limit before anything is
/// checked) and stays counted when the password or the code is wrong.
pub async fn disable_totp(
    ports: &TwoFactorPorts<'_>,
    principal: &AdminPrincipal,
    origin: &ClientOrigin,
    password: &str,
    code: &str,
    now: OffsetDateTime,
) -> Result<(), AdminError> {
    let (uow, users, guard) = (ports.uow, ports.users, ports.guard);
    let user = users.get_admin_user(principal.user_id).await?;
    let secret = users
        .admin_totp_secret(principal.user_id)
        .await?
        .ok_or_else(|| AdminError::Conflict("TOTP is not enabled".to_owned()))?;
    let checked = guard.check(origin, &user.username, user.password_hash.as_ref(), password).await?;
    if user.password_hash.is_some() && !checked.password_ok {
        return Err(AdminError::Forbidden("the current password is wrong".to_owned()));
    }
    if accept_code(guard.throttle(), principal.user_id, &secret, code, now).await?.is_none() {
        return Err(AdminError::invalid("code", "is wrong or was already used"));
    }
    checked.succeeded().await;
    let mut tx = uow.begin().await?;
    tx.set_admin_totp(principal.user_id, TotpChange::Clear).await?;
    tx.commit(audit(principal, "admin_user.totp_disable")).await?;
    Ok(())
}
