//! Failed-login counters for rate limiting (coordination storage, fixed windows).

use std::time::Duration;

use async_trait::async_trait;

use gateway_core::coordination::CoordinationError;

/// The failures counted in the current window and how long until the window ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailureCount {
    pub failures: u32,
    pub resets_in: Duration,
}

#[async_trait]
pub trait LoginThrottle: Send + Sync {
    /// The count for `subject` (e.g. `ip:127.0.0.1`, `user:admin`); zero when no window runs.
    async fn login_failures(&self, subject: &str) -> Result<FailureCount, CoordinationError>;
    /// Counts one failure; the first failure opens a window of `window`.
    async fn record_login_failure(&self, subject: &str, window: Duration) -> Result<FailureCount, CoordinationError>;
    async fn clear_login_failures(&self, subject: &str) -> Result<(), CoordinationError>;
    /// Marks `marker` used for `ttl`; `true` only for the first call (a TOTP code is accepted
    /// once per user and step).
    async fn claim_once(&self, marker: &str, ttl: Duration) -> Result<bool, CoordinationError>;
}
