//! Admin sessions in coordination storage (Redis): created at login, checked and extended on
//! every request (idle expiry), bounded by an absolute expiry, revoked at logout. Losing Redis
//! logs every admin out — sessions are rebuildable by logging in again.

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use gateway_core::coordination::CoordinationError;

use crate::admin_user::AdminUserId;

/// SHA-256 of the session token (the cookie value). Storage keys hold only this digest.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionTokenHash(pub [u8; 32]);

impl SessionTokenHash {
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The public id of the session (shown in session lists): the first 16 hex digits.
    pub fn public_id(&self) -> String {
        self.to_hex()[..16].to_owned()
    }
}

impl std::fmt::Debug for SessionTokenHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SessionTokenHash({})", self.public_id())
    }
}

/// One admin session as stored.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdminSession {
    /// Public id (see [`SessionTokenHash::public_id`]).
    pub id: String,
    pub user_id: AdminUserId,
    pub username: String,
    /// The value the `X-Switchboard-CSRF` header must carry on unsafe requests.
    pub csrf_token: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub last_seen_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub idle_expires_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub absolute_expires_at: OffsetDateTime,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
    /// The admin's credential stamp at login (`auth::standing::credential_stamp`); a session
    /// whose stamp is no longer the admin's ends. Empty (a session stored before stamps
    /// existed) never matches.
    #[serde(default)]
    pub credential_stamp: String,
}

impl std::fmt::Debug for AdminSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminSession").field("id", &self.id).field("user_id", &self.user_id).finish_non_exhaustive()
    }
}

#[async_trait]
pub trait AdminSessions: Send + Sync {
    /// Stores a new session; it expires at `session.idle_expires_at` unless touched.
    async fn create_session(&self, token: &SessionTokenHash, session: &AdminSession) -> Result<(), CoordinationError>;

    /// The live session of `token`, with its idle expiry moved to `now + idle` (never past the
    /// absolute expiry); `None` when absent, idle-expired or past its absolute expiry.
    async fn touch_session(
        &self,
        token: &SessionTokenHash,
        now: OffsetDateTime,
        idle: Duration,
    ) -> Result<Option<AdminSession>, CoordinationError>;

    async fn revoke_session(&self, token: &SessionTokenHash) -> Result<(), CoordinationError>;

    /// The user's live sessions, newest first.
    async fn list_user_sessions(
        &self,
        user: AdminUserId,
        now: OffsetDateTime,
    ) -> Result<Vec<AdminSession>, CoordinationError>;

    /// Revokes the user's session with public id `id`; `false` when it is not theirs or gone.
    async fn revoke_user_session(&self, user: AdminUserId, id: &str) -> Result<bool, CoordinationError>;

    /// Revokes every session of the user except `keep` (a public id); returns how many.
    async fn revoke_user_sessions(&self, user: AdminUserId, keep: Option<&str>) -> Result<u32, CoordinationError>;
}
