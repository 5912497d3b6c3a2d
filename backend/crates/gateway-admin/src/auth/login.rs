//! Login, session checks and logout.

use time::OffsetDateTime;

use crate::admin_user::AdminUserRecord;
use crate::auth::password_guard::{ClientOrigin, PasswordGuard};
use crate::auth::standing::{AdminStandings, Verdict, credential_stamp};
use crate::auth::two_factor::accept_code;
use crate::auth::{AdminPrincipal, AuthMethod, AuthPolicy, random_token, session_token_hash};
use crate::error::AdminError;
use crate::ports::{AdminSession, AdminSessions, AdminUsers};

/// What the client sent.
pub struct LoginAttempt {
    pub username: String,
    pub password: String,
    /// The current TOTP code; needed when the user has TOTP enabled.
    pub totp: Option<String>,
    pub origin: ClientOrigin,
    pub user_agent: Option<String>,
}

/// A successful login: the session token goes into the cookie, once, and a new device cookie
/// (for the next logins of this browser) into another.
pub struct LoginOutcome {
    pub token: String,
    pub session: AdminSession,
    pub user: AdminUserRecord,
    pub device_cookie: String,
}

pub async fn login(
    users: &dyn AdminUsers,
    sessions: &dyn AdminSessions,
    guard: &PasswordGuard,
    policy: &AuthPolicy,
    attempt: LoginAttempt,
    now: OffsetDateTime,
) -> Result<LoginOutcome, AdminError> {
    let user = users.find_admin_by_username(attempt.username.trim()).await?;
    let hash = user.as_ref().filter(|u| u.enabled).and_then(|u| u.password_hash.as_ref());
    let checked = guard.check(&attempt.origin, &attempt.username, hash, &attempt.password).await?;
    let ip = attempt.origin.ip.as_deref().unwrap_or("unknown");
    let user = match user {
        Some(user) if checked.password_ok => user,
        _ => {
            tracing::info!(ip, "admin login failed");
            return Err(AdminError::InvalidCredentials);
        }
    };
    if user.totp_enabled {
        // The password was right. Without a code, say a code is needed (not counted: it is the
        // dashboard's first step); a wrong or replayed code counts like a wrong password.
        let Some(code) = attempt.totp.as_deref().filter(|c| !c.trim().is_empty()) else {
            checked.succeeded().await;
            return Err(AdminError::TotpRequired);
        };
        let secret = users.admin_totp_secret(user.id).await?;
        let accepted = match &secret {
            Some(secret) => accept_code(guard.throttle(), user.id, secret, code, now).await?.is_some(),
            None => false,
        };
        if !accepted {
            // `checked` is dropped counted: a wrong code is a failed attempt.
            tracing::info!(ip, "admin login: wrong TOTP code");
            return Err(AdminError::TotpInvalid);
        }
    }
    checked.succeeded().await;
    let token = random_token();
    let hash = session_token_hash(&token);
    let absolute = now + policy.session_absolute;
    let session = AdminSession {
        id: hash.public_id(),
        user_id: user.id,
        username: user.username.clone(),
        csrf_token: random_token(),
        created_at: now,
        last_seen_at: now,
        idle_expires_at: (now + policy.session_idle).min(absolute),
        absolute_expires_at: absolute,
        ip: attempt.origin.ip,
        user_agent: attempt.user_agent.map(|ua| ua.chars().take(256).collect()),
        credential_stamp: credential_stamp(user.password_hash.as_ref()),
    };
    sessions.create_session(&hash, &session).await?;
    users.record_admin_login(user.id, now).await?;
    let mut user = user;
    user.last_login_at = Some(now);
    tracing::info!(user = user.id.0, session = %session.id, "admin logged in");
    let device_cookie = guard.devices().issue(&user.username, now);
    Ok(LoginOutcome { token, session, user, device_cookie })
}

/// The live session of a cookie token, its idle expiry extended — if its admin is still
/// enabled and has the credentials the session logged in with. Otherwise the session ends:
/// every session of a disabled or deleted admin, every session from before a password change.
pub async fn authenticate_session(
    sessions: &dyn AdminSessions,
    standings: &AdminStandings,
    policy: &AuthPolicy,
    token: &str,
    now: OffsetDateTime,
) -> Result<Option<AdminSession>, AdminError> {
    let hash = session_token_hash(token);
    let Some(session) = sessions.touch_session(&hash, now, policy.session_idle).await? else { return Ok(None) };
    match standings.verdict(&session).await? {
        Verdict::Admitted => Ok(Some(session)),
        Verdict::AdminGone => {
            let ended = sessions.revoke_user_sessions(session.user_id, None).await?;
            tracing::info!(user = session.user_id.0, ended, "admin disabled or deleted: sessions ended");
            Ok(None)
        }
        Verdict::CredentialsChanged { current } => {
            sessions.revoke_session(&hash).await?;
            let mut ended = 1;
            for stale in sessions.list_user_sessions(session.user_id, now).await? {
                if stale.credential_stamp != current && sessions.revoke_user_session(session.user_id, &stale.id).await?
                {
                    ended += 1;
                }
            }
            tracing::info!(user = session.user_id.0, ended, "admin password changed: older sessions ended");
            Ok(None)
        }
    }
}

/// Whether a principal authenticated earlier (a long-lived request: the live event stream) is
/// still signed in: its session is live — without extending it — and its admin's standing
/// admits it; for an API key, the admin is still enabled.
pub async fn still_signed_in(
    sessions: &dyn AdminSessions,
    standings: &AdminStandings,
    principal: &AdminPrincipal,
    now: OffsetDateTime,
) -> Result<bool, AdminError> {
    match &principal.method {
        AuthMethod::Session { session_id, .. } => {
            let live = sessions.list_user_sessions(principal.user_id, now).await?;
            let Some(session) = live.into_iter().find(|s| &s.id == session_id) else { return Ok(false) };
            Ok(standings.verdict(&session).await? == Verdict::Admitted)
        }
        AuthMethod::ApiKey => standings.enabled(principal.user_id).await,
    }
}

pub async fn logout(sessions: &dyn AdminSessions, token: &str) -> Result<(), AdminError> {
    Ok(sessions.revoke_session(&session_token_hash(token)).await?)
}
