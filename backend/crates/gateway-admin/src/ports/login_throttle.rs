//! Password-attempt counters for the login limits (coordination storage, fixed windows).
//!
//! An attempt is counted *before* its password is checked, atomically, so concurrent guesses
//! each see their own count; an attempt that succeeds (or that another limit refused) is
//! taken back with [`LoginThrottle::uncount_attempt`]. What remains counted are the failures.

use std::time::Duration;

use async_trait::async_trait;

use gateway_core::coordination::CoordinationError;

/// The attempts counted in the current window and how long until the window ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailureCount {
    pub failures: u32,
    pub resets_in: Duration,
}

#[async_trait]
pub trait LoginThrottle: Send + Sync {
    /// Counts one attempt for `subject` (e.g. `ip:127.0.0.1`, `untrusted:admin`) in one atomic
    /// step and returns the count including it; the first attempt opens a window of `window`.
    async fn count_attempt(&self, subject: &str, window: Duration) -> Result<FailureCount, CoordinationError>;
    /// Takes one counted attempt of `subject` back; never below zero, never opens a window.
    async fn uncount_attempt(&self, subject: &str) -> Result<(), CoordinationError>;
    /// Marks `marker` used for `ttl`; `true` only for the first call (a TOTP code is accepted
    /// once per user and step).
    async fn claim_once(&self, marker: &str, ttl: Duration) -> Result<bool, CoordinationError>;
}
