//! [`AdminSessions`] over Redis. Layout (`P` = key prefix):
//! - `P:admin:session:{<sha256 hex of token>}` — string, the session JSON; its TTL is the idle
//!   expiry (never past the absolute expiry), re-set on every touch;
//! - `P:admin:user-sessions:{<user id>}` — hash, public id → token hash hex (the user's
//!   sessions, for listing and revoking); stale fields are pruned when listed.
//!
//! Expiry is also checked against the stored deadlines on every touch, so a TTL that a crash
//! left too long never extends a session.

use std::time::Duration;

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_admin::admin_user::AdminUserId;
use gateway_admin::ports::{AdminSession, AdminSessions, SessionTokenHash};
use gateway_core::coordination::CoordinationError;

use super::RedisCoordination;

impl RedisCoordination {
    fn session_key(&self, hash_hex: &str) -> String {
        format!("{}:admin:session:{{{hash_hex}}}", self.settings.prefix)
    }

    fn user_sessions_key(&self, user: AdminUserId) -> String {
        format!("{}:admin:user-sessions:{{{user}}}", self.settings.prefix)
    }

    async fn read_session(&self, hash_hex: &str) -> Result<Option<AdminSession>, CoordinationError> {
        let mut get = ::redis::cmd("GET");
        get.arg(self.session_key(hash_hex));
        let raw: Option<String> = self.connection.query(&get).await?;
        Ok(raw.and_then(|json| serde_json::from_str(&json).ok()))
    }

    async fn delete_session(&self, user: AdminUserId, id: &str, hash_hex: &str) -> Result<(), CoordinationError> {
        let mut del = ::redis::cmd("DEL");
        del.arg(self.session_key(hash_hex));
        self.connection.query::<i64>(&del).await?;
        let mut hdel = ::redis::cmd("HDEL");
        hdel.arg(self.user_sessions_key(user)).arg(id);
        self.connection.query::<i64>(&hdel).await.map(drop)
    }

    async fn user_index(&self, user: AdminUserId) -> Result<Vec<(String, String)>, CoordinationError> {
        let mut cmd = ::redis::cmd("HGETALL");
        cmd.arg(self.user_sessions_key(user));
        self.connection.query(&cmd).await
    }
}

fn millis_until(deadline: OffsetDateTime, now: OffsetDateTime) -> i64 {
    i64::try_from((deadline - now).whole_milliseconds()).unwrap_or(i64::MAX)
}

fn encode(session: &AdminSession) -> Result<String, CoordinationError> {
    serde_json::to_string(session).map_err(|e| CoordinationError::InvalidInput(format!("session: {e}")))
}

#[async_trait]
impl AdminSessions for RedisCoordination {
    async fn create_session(&self, token: &SessionTokenHash, session: &AdminSession) -> Result<(), CoordinationError> {
        let ttl = millis_until(session.idle_expires_at, session.created_at).max(1);
        let mut set = ::redis::cmd("SET");
        set.arg(self.session_key(&token.to_hex())).arg(encode(session)?).arg("PX").arg(ttl);
        self.connection.query::<()>(&set).await?;
        let index = self.user_sessions_key(session.user_id);
        let mut hset = ::redis::cmd("HSET");
        hset.arg(&index).arg(&session.id).arg(token.to_hex());
        self.connection.query::<i64>(&hset).await?;
        let mut expire = ::redis::cmd("PEXPIRE");
        expire.arg(&index).arg(millis_until(session.absolute_expires_at, session.created_at).max(1));
        self.connection.query::<i64>(&expire).await.map(drop)
    }

    async fn touch_session(
        &self,
        token: &SessionTokenHash,
        now: OffsetDateTime,
        idle: Duration,
    ) -> Result<Option<AdminSession>, CoordinationError> {
        let hex = token.to_hex();
        let Some(mut session) = self.read_session(&hex).await? else { return Ok(None) };
        if now >= session.absolute_expires_at || now >= session.idle_expires_at {
            self.delete_session(session.user_id, &session.id, &hex).await?;
            return Ok(None);
        }
        session.last_seen_at = now;
        session.idle_expires_at = (now + idle).min(session.absolute_expires_at);
        let mut set = ::redis::cmd("SET");
        set.arg(self.session_key(&hex))
            .arg(encode(&session)?)
            .arg("PX")
            .arg(millis_until(session.idle_expires_at, now).max(1))
            .arg("XX");
        // XX: a session revoked meanwhile is not resurrected.
        let stored: Option<String> = self.connection.query(&set).await?;
        Ok(stored.map(|_| session))
    }

    async fn revoke_session(&self, token: &SessionTokenHash) -> Result<(), CoordinationError> {
        let hex = token.to_hex();
        match self.read_session(&hex).await? {
            Some(session) => self.delete_session(session.user_id, &session.id, &hex).await,
            None => Ok(()),
        }
    }

    async fn list_user_sessions(
        &self,
        user: AdminUserId,
        now: OffsetDateTime,
    ) -> Result<Vec<AdminSession>, CoordinationError> {
        let mut live = Vec::new();
        for (id, hex) in self.user_index(user).await? {
            match self.read_session(&hex).await? {
                Some(session) if now < session.idle_expires_at && now < session.absolute_expires_at => {
                    live.push(session)
                }
                _ => self.delete_session(user, &id, &hex).await?,
            }
        }
        live.sort_by_key(|s| std::cmp::Reverse(s.created_at));
        Ok(live)
    }

    async fn revoke_user_session(&self, user: AdminUserId, id: &str) -> Result<bool, CoordinationError> {
        let mut hget = ::redis::cmd("HGET");
        hget.arg(self.user_sessions_key(user)).arg(id);
        let hex: Option<String> = self.connection.query(&hget).await?;
        let Some(hex) = hex else { return Ok(false) };
        let existed = self.read_session(&hex).await?.is_some();
        self.delete_session(user, id, &hex).await?;
        Ok(existed)
    }

    async fn revoke_user_sessions(&self, user: AdminUserId, keep: Option<&str>) -> Result<u32, CoordinationError> {
        let mut revoked = 0;
        for (id, hex) in self.user_index(user).await? {
            if Some(id.as_str()) != keep {
                self.delete_session(user, &id, &hex).await?;
                revoked += 1;
            }
        }
        Ok(revoked)
    }
}
