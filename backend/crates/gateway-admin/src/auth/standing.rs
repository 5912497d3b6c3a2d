//! Sessions follow their admin: a session carries the credential stamp of the admin at login
//! (a digest of the password hash), and every request checks it against an in-memory roster of
//! the admins (enabled flag and current stamp). A disabled or deleted admin, or one whose
//! password changed — through the API, the command line or SQL — loses every session.
//!
//! The roster is read from storage at most once per [`ROSTER_MAX_AGE`] while it admits
//! sessions; any refusal is confirmed against a fresh read first, so a stale roster can delay
//! a refusal by at most that age but never refuses a valid session.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::time::Instant;

use crate::admin_user::{AdminUserId, PasswordHash};
use crate::error::AdminError;
use crate::ports::{AdminSession, AdminUsers};

/// How old the roster may be when it admits a session.
pub const ROSTER_MAX_AGE: Duration = Duration::from_secs(1);

/// The stamp of an admin's credentials: changes whenever the password hash does (every hash
/// has a fresh salt, so even the same password gives a new stamp).
pub fn credential_stamp(hash: Option<&PasswordHash>) -> String {
    let mut digest = Sha256::new();
    digest.update(b"switchboard admin credential v1\0");
    digest.update(hash.map(|h| h.0.as_bytes()).unwrap_or_default());
    digest.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// What the roster says about a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Admitted,
    /// The admin is disabled or deleted: every session of theirs ends.
    AdminGone,
    /// The admin's password changed since this session logged in; `current` is the stamp now.
    CredentialsChanged {
        current: String,
    },
}

#[derive(Clone, PartialEq, Eq)]
struct Standing {
    enabled: bool,
    stamp: String,
}

struct Roster {
    loaded_at: Instant,
    admins: Arc<HashMap<AdminUserId, Standing>>,
}

/// The roster of admins the sessions are checked against.
pub struct AdminStandings {
    users: Arc<dyn AdminUsers>,
    max_age: Duration,
    roster: RwLock<Option<Roster>>,
}

impl AdminStandings {
    pub fn new(users: Arc<dyn AdminUsers>, max_age: Duration) -> Self {
        Self { users, max_age, roster: RwLock::new(None) }
    }

    /// Whether `session` still belongs to an enabled admin with the credentials it logged in
    /// with.
    pub async fn verdict(&self, session: &AdminSession) -> Result<Verdict, AdminError> {
        self.check(session.user_id, Some(&session.credential_stamp)).await
    }

    /// Whether `user` exists and is enabled (an API-key principal has no session stamp).
    pub async fn enabled(&self, user: AdminUserId) -> Result<bool, AdminError> {
        Ok(self.check(user, None).await? == Verdict::Admitted)
    }

    async fn check(&self, user: AdminUserId, stamp: Option<&str>) -> Result<Verdict, AdminError> {
        if let Some(admins) = self.fresh() {
            let verdict = judge(&admins, user, stamp);
            if verdict == Verdict::Admitted {
                return Ok(verdict);
            }
        }
        let admins = self.reload().await?;
        Ok(judge(&admins, user, stamp))
    }

    /// Drops the roster (after a change made here), so the next check reads storage.
    pub fn forget(&self) {
        *self.roster.write().unwrap_or_else(PoisonError::into_inner) = None;
    }

    fn fresh(&self) -> Option<Arc<HashMap<AdminUserId, Standing>>> {
        let roster = self.roster.read().unwrap_or_else(PoisonError::into_inner);
        roster.as_ref().filter(|r| r.loaded_at.elapsed() < self.max_age).map(|r| Arc::clone(&r.admins))
    }

    async fn reload(&self) -> Result<Arc<HashMap<AdminUserId, Standing>>, AdminError> {
        let loaded_at = Instant::now();
        let admins: HashMap<AdminUserId, Standing> = self
            .users
            .list_admin_users()
            .await?
            .into_iter()
            .map(|u| (u.id, Standing { enabled: u.enabled, stamp: credential_stamp(u.password_hash.as_ref()) }))
            .collect();
        let admins = Arc::new(admins);
        *self.roster.write().unwrap_or_else(PoisonError::into_inner) =
            Some(Roster { loaded_at, admins: Arc::clone(&admins) });
        Ok(admins)
    }
}

fn judge(admins: &HashMap<AdminUserId, Standing>, user: AdminUserId, stamp: Option<&str>) -> Verdict {
    match admins.get(&user) {
        Some(standing) if !standing.enabled => Verdict::AdminGone,
        None => Verdict::AdminGone,
        Some(standing) if stamp.is_some_and(|stamp| stamp != standing.stamp) => {
            Verdict::CredentialsChanged { current: standing.stamp.clone() }
        }
        Some(_) => Verdict::Admitted,
    }
}
