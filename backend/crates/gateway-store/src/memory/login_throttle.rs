//! [`LoginThrottle`] in process: a count and a window end per subject.

use std::time::Duration;

use async_trait::async_trait;

use gateway_admin::ports::{FailureCount, LoginThrottle};
use gateway_core::coordination::CoordinationError;
use gateway_core::coordination::time::duration_millis;

use super::MemoryCoordination;

#[async_trait]
impl LoginThrottle for MemoryCoordination {
    async fn login_failures(&self, subject: &str) -> Result<FailureCount, CoordinationError> {
        let (state, now) = self.lock();
        Ok(match state.login_failures.get(subject) {
            Some((failures, ends)) if *ends > now => {
                FailureCount { failures: *failures, resets_in: Duration::from_millis(ends - now) }
            }
            _ => FailureCount { failures: 0, resets_in: Duration::ZERO },
        })
    }

    async fn record_login_failure(&self, subject: &str, window: Duration) -> Result<FailureCount, CoordinationError> {
        let (mut state, now) = self.lock();
        let entry = state.login_failures.entry(subject.to_owned()).or_insert((0, 0));
        if entry.1 <= now {
            *entry = (0, now.saturating_add(duration_millis(window).max(1)));
        }
        entry.0 = entry.0.saturating_add(1);
        Ok(FailureCount { failures: entry.0, resets_in: Duration::from_millis(entry.1 - now) })
    }

    async fn clear_login_failures(&self, subject: &str) -> Result<(), CoordinationError> {
        let (mut state, _) = self.lock();
        state.login_failures.remove(subject);
        Ok(())
    }

    async fn claim_once(&self, marker: &str, ttl: Duration) -> Result<bool, CoordinationError> {
        let (mut state, now) = self.lock();
        let ends = now.saturating_add(duration_millis(ttl).max(1));
        match state.once_markers.get(marker) {
            Some(until) if *until > now => Ok(false),
            _ => {
                state.once_markers.insert(marker.to_owned(), ends);
                Ok(true)
            }
        }
    }
}
