//! [`AdminSessions`] in process: one map from token digest to session; deadlines are checked on
//! every touch (the same contract as the Redis adapter).

use std::time::Duration;

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_admin::admin_user::AdminUserId;
use gateway_admin::ports::{AdminSession, AdminSessions, SessionTokenHash};
use gateway_core::coordination::CoordinationError;

use super::MemoryCoordination;

fn live(session: &AdminSession, now: OffsetDateTime) -> bool {
    now < session.idle_expires_at && now < session.absolute_expires_at
}

#[async_trait]
impl AdminSessions for MemoryCoordination {
    async fn create_session(&self, token: &SessionTokenHash, session: &AdminSession) -> Result<(), CoordinationError> {
        let (mut state, _) = self.lock();
        state.admin_sessions.insert(token.0, session.clone());
        Ok(())
    }

    async fn touch_session(
        &self,
        token: &SessionTokenHash,
        now: OffsetDateTime,
        idle: Duration,
    ) -> Result<Option<AdminSession>, CoordinationError> {
        let (mut state, _) = self.lock();
        let Some(session) = state.admin_sessions.get_mut(&token.0) else { return Ok(None) };
        if !live(session, now) {
            state.admin_sessions.remove(&token.0);
            return Ok(None);
        }
        session.last_seen_at = now;
        session.idle_expires_at = (now + idle).min(session.absolute_expires_at);
        Ok(Some(session.clone()))
    }

    async fn revoke_session(&self, token: &SessionTokenHash) -> Result<(), CoordinationError> {
        let (mut state, _) = self.lock();
        state.admin_sessions.remove(&token.0);
        Ok(())
    }

    async fn list_user_sessions(
        &self,
        user: AdminUserId,
        now: OffsetDateTime,
    ) -> Result<Vec<AdminSession>, CoordinationError> {
        let (mut state, _) = self.lock();
        state.admin_sessions.retain(|_, s| live(s, now));
        let mut sessions: Vec<AdminSession> =
            state.admin_sessions.values().filter(|s| s.user_id == user).cloned().collect();
        sessions.sort_by_key(|s| std::cmp::Reverse(s.created_at));
        Ok(sessions)
    }

    async fn revoke_user_session(&self, user: AdminUserId, id: &str) -> Result<bool, CoordinationError> {
        let (mut state, _) = self.lock();
        let before = state.admin_sessions.len();
        state.admin_sessions.retain(|_, s| !(s.user_id == user && s.id == id));
        Ok(state.admin_sessions.len() < before)
    }

    async fn revoke_user_sessions(&self, user: AdminUserId, keep: Option<&str>) -> Result<u32, CoordinationError> {
        let (mut state, _) = self.lock();
        let before = state.admin_sessions.len();
        state.admin_sessions.retain(|_, s| s.user_id != user || Some(s.id.as_str()) == keep);
        Ok(u32::try_from(before - state.admin_sessions.len()).unwrap_or(u32::MAX))
    }
}
