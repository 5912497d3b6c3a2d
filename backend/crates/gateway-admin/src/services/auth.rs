//! Signing in and out, sessions, the admin's own password, API key and TOTP, the step-up
//! check other services use, and the first administrator.

use std::sync::Arc;

use time::OffsetDateTime;

use crate::admin_user::{AdminApiKey, AdminApiKeySecret, AdminUserId, AdminUserRecord};
use crate::auth::api_keys::{self, PasswordChanged, StepUp};
use crate::auth::bootstrap::{BootstrapOutcome, bootstrap_admin};
use crate::auth::device_cookie::DeviceCookies;
use crate::auth::standing::ROSTER_MAX_AGE;
use crate::auth::two_factor::{self, TotpEnrollment, TwoFactorPorts};
use crate::auth::{
    AdminPrincipal, AdminStandings, AuthPolicy, ClientOrigin, LoginAttempt, LoginOutcome, PasswordGuard, login,
};
use crate::error::AdminError;
use crate::ports::{AdminSession, AdminSessions, AdminUsers, LoginThrottle};
use crate::services::AuthSettings;
use crate::services::Mutations;

/// The ports the auth use cases need.
pub struct AuthPorts {
    pub uow: Mutations,
    pub users: Arc<dyn AdminUsers>,
    pub sessions: Arc<dyn AdminSessions>,
    pub throttle: Arc<dyn LoginThrottle>,
}

/// What a step-up (password confirmation) reads; shared with the services that ask for one.
#[derive(Clone)]
pub struct StepUpPorts {
    pub users: Arc<dyn AdminUsers>,
    pub guard: Arc<PasswordGuard>,
}

impl StepUpPorts {
    pub fn for_request<'a>(&'a self, principal: &'a AdminPrincipal, origin: &'a ClientOrigin) -> StepUp<'a> {
        StepUp { users: self.users.as_ref(), guard: &self.guard, principal, origin }
    }
}

pub struct AuthService {
    ports: AuthPorts,
    policy: AuthPolicy,
    /// Every password a request sends is checked through it (login limits, hashing bound).
    guard: Arc<PasswordGuard>,
    /// The admins sessions are checked against (enabled, credential stamp).
    standings: Arc<AdminStandings>,
}

impl AuthService {
    pub fn new(ports: AuthPorts, settings: AuthSettings) -> Self {
        let devices = DeviceCookies::new(settings.device_key, settings.policy.device_cookie_lifetime);
        let guard = Arc::new(PasswordGuard::new(Arc::clone(&ports.throttle), devices, &settings.policy));
        let standings = Arc::new(AdminStandings::new(Arc::clone(&ports.users), ROSTER_MAX_AGE));
        Self { ports, policy: settings.policy, guard, standings }
    }

    pub fn policy(&self) -> &AuthPolicy {
        &self.policy
    }

    /// How long a device cookie lives.
    pub fn device_cookie_lifetime(&self) -> std::time::Duration {
        self.guard.devices().lifetime()
    }

    pub fn step_up_ports(&self) -> StepUpPorts {
        StepUpPorts { users: self.ports.users.clone(), guard: self.guard.clone() }
    }

    fn two_factor(&self) -> TwoFactorPorts<'_> {
        TwoFactorPorts {
            uow: self.ports.uow.get(),
            users: self.ports.users.as_ref(),
            sessions: self.ports.sessions.as_ref(),
            guard: &self.guard,
        }
    }

    /// Creates the first admin when there is none (`None` when admins exist).
    pub async fn bootstrap_first_admin(
        &self,
        username: &str,
        password: Option<&str>,
    ) -> Result<Option<BootstrapOutcome>, AdminError> {
        bootstrap_admin(self.ports.users.as_ref(), self.ports.uow.get(), username, password).await
    }

    pub async fn login(&self, attempt: LoginAttempt, now: OffsetDateTime) -> Result<LoginOutcome, AdminError> {
        let (users, sessions) = (self.ports.users.as_ref(), self.ports.sessions.as_ref());
        login::login(users, sessions, &self.guard, &self.policy, attempt, now).await
    }

    /// The live session of a session token (extended), or `None`.
    pub async fn authenticate_session(
        &self,
        token: &str,
        now: OffsetDateTime,
    ) -> Result<Option<AdminSession>, AdminError> {
        login::authenticate_session(self.ports.sessions.as_ref(), &self.standings, &self.policy, token, now).await
    }

    /// The admin of an `sb-admin-…` key, or `None`.
    pub async fn authenticate_api_key(&self, token: &str) -> Result<Option<AdminUserRecord>, AdminError> {
        api_keys::authenticate_api_key(self.ports.users.as_ref(), token).await
    }

    /// Whether the principal's session is still live and its admin admitted (not extended).
    pub async fn still_signed_in(&self, principal: &AdminPrincipal, now: OffsetDateTime) -> Result<bool, AdminError> {
        login::still_signed_in(self.ports.sessions.as_ref(), &self.standings, principal, now).await
    }

    pub async fn logout(&self, token: &str) -> Result<(), AdminError> {
        login::logout(self.ports.sessions.as_ref(), token).await
    }

    /// The admin and, when `session_id` is given, that live session of theirs.
    pub async fn current(
        &self,
        user: AdminUserId,
        session_id: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<(AdminUserRecord, Option<AdminSession>), AdminError> {
        let record = self.ports.users.get_admin_user(user).await?;
        let session = match session_id {
            Some(id) => self.sessions(user, now).await?.into_iter().find(|s| s.id == id),
            None => None,
        };
        Ok((record, session))
    }

    /// The admin's live sessions, newest first.
    pub async fn sessions(&self, user: AdminUserId, now: OffsetDateTime) -> Result<Vec<AdminSession>, AdminError> {
        Ok(self.ports.sessions.list_user_sessions(user, now).await?)
    }

    /// Revokes one of the admin's sessions; `false` when there is no such session.
    pub async fn revoke_session(&self, user: AdminUserId, id: &str) -> Result<bool, AdminError> {
        Ok(self.ports.sessions.revoke_user_session(user, id).await?)
    }

    pub async fn change_password(
        &self,
        principal: &AdminPrincipal,
        origin: &ClientOrigin,
        current: &str,
        new: &str,
        now: OffsetDateTime,
    ) -> Result<PasswordChanged, AdminError> {
        let step_up = StepUp { users: self.ports.users.as_ref(), guard: &self.guard, principal, origin };
        let (uow, sessions) = (self.ports.uow.get(), self.ports.sessions.as_ref());
        api_keys::change_password(uow, sessions, &self.standings, &step_up, current, new, now).await
    }

    pub async fn create_api_key(
        &self,
        principal: &AdminPrincipal,
        origin: &ClientOrigin,
        password: &str,
    ) -> Result<(AdminApiKeySecret, AdminApiKey), AdminError> {
        let step_up = StepUp { users: self.ports.users.as_ref(), guard: &self.guard, principal, origin };
        api_keys::create_api_key(self.ports.uow.get(), &step_up, password).await
    }

    pub async fn delete_api_key(&self, principal: &AdminPrincipal) -> Result<(), AdminError> {
        api_keys::delete_api_key(self.ports.uow.get(), principal).await
    }

    pub async fn enroll_totp(
        &self,
        principal: &AdminPrincipal,
        origin: &ClientOrigin,
        password: &str,
    ) -> Result<TotpEnrollment, AdminError> {
        two_factor::enroll_totp(&self.two_factor(), principal, origin, password).await
    }

    /// Confirms the pending TOTP secret; returns how many other sessions were revoked.
    pub async fn confirm_totp(
        &self,
        principal: &AdminPrincipal,
        code: &str,
        now: OffsetDateTime,
    ) -> Result<u32, AdminError> {
        two_factor::confirm_totp(&self.two_factor(), principal, code, now).await
    }

    pub async fn disable_totp(
        &self,
        principal: &AdminPrincipal,
        origin: &ClientOrigin,
        password: &str,
        code: &str,
        now: OffsetDateTime,
    ) -> Result<(), AdminError> {
        two_factor::disable_totp(&self.two_factor(), principal, origin, password, code, now).await
    }
}
