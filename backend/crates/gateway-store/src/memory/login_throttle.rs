//! [`LoginThrottle`] in process: a count and a window end per subject (the same contract as
//! the Redis scripts, each operation one critical section).

use std::time::Duration;

use async_trait::async_trait;

use gateway_admin::ports::{FailureCount, LoginThrottle};
use gateway_core::coordination::CoordinationError;
use gateway_core::coordination::time::duration_millis;

use super::MemoryCoordination;

#[async_trait]
impl LoginThrottle for MemoryCoordination {
    async fn count_attempt(&self, subject: &str, window: Duration) -> Result<FailureCount, CoordinationError> {
        let (mut state, now) = self.lock();
        let entry = state.login_failures.entry(subject.to_owned()).or_insert((0, 0));
        if entry.1 <= now {
            *entry = (0, now.saturating_add(duration_millis(window).max(1)));
        }
        entry.0 = entry.0.saturating_add(1);
        Ok(FailureCount { failures: entry.0, resets_in: Duration::from_millis(entry.1 - now) })
    }

    async fn uncount_attempt(&self, subject: &str) -> Result<(), CoordinationError> {
        let (mut state, now) = self.lock();
        match state.login_failures.get_mut(subject) {
            Some((failures, ends)) if *ends > now && *failures > 1 => *failures -= 1,
            Some(_) => {
                state.login_failures.remove(subject);
            }
            None => {}
        }
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
