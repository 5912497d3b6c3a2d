//! When to refresh an OAuth credential next: ahead of expiry after a success, and a bounded
//! backoff after a transient failure. Pure functions of the facts and the clock; every OAuth
//! provider shares them.
//!
//! After a transient failure (rate limit, 5xx, timeout, malformed answer) the credential is kept
//! and the next attempt comes after about 5, 15, 45, 135 and 300 seconds, then every 10
//! minutes; never later than the expiry of an access token that still works; and at expiry +
//! 24 hours the credential is given up (terminal `expired`). Permanent refusals
//! (`invalid_grant`, a reused or revoked refresh token, a ban) are terminal at once and do not
//! go through this schedule.

use std::time::Duration;

use time::OffsetDateTime;

/// Delays after the 1st, 2nd, … consecutive transient failure.
pub const BACKOFF_STEPS: [Duration; 5] = [
    Duration::from_secs(5),
    Duration::from_secs(15),
    Duration::from_secs(45),
    Duration::from_secs(135),
    Duration::from_secs(300),
];

/// The delay after the steps are used up.
pub const STEADY_RETRY: Duration = Duration::from_secs(600);

/// How long after the access token's expiry refresh attempts continue before the credential is
/// given up.
pub const GRACE_AFTER_EXPIRY: Duration = Duration::from_secs(24 * 3600);

/// The shortest time between a successful refresh and the next one, so that a short-lived token
/// (shorter than the refresh margin) cannot make the worker refresh in a loop.
pub const MIN_SUCCESS_SPACING: Duration = Duration::from_secs(30);

/// When the expiry is unknown (an opaque access token), refresh this long after the last
/// success (Codex's own rule).
pub const UNKNOWN_EXPIRY_INTERVAL: Duration = Duration::from_secs(8 * 24 * 3600);

/// The stable reason written when the grace period after expiry ran out.
pub const EXPIRED_REASON: &str = "refresh_failed_past_expiry";

fn span(duration: Duration) -> time::Duration {
    time::Duration::try_from(duration).unwrap_or(time::Duration::MAX)
}

/// The next refresh after a success: `margin` before the access token expires, at least
/// [`MIN_SUCCESS_SPACING`] from now.
pub fn after_success(expires_at: Option<OffsetDateTime>, margin: Duration, now: OffsetDateTime) -> OffsetDateTime {
    let earliest = now + span(MIN_SUCCESS_SPACING);
    match expires_at {
        Some(expires) => (expires - span(margin)).max(earliest),
        None => now + span(UNKNOWN_EXPIRY_INTERVAL),
    }
}

/// The delay before the attempt that follows the `failures`-th consecutive transient failure
/// (1-based; 0 is treated as 1).
pub fn backoff(failures: u32) -> Duration {
    let index = failures.max(1) as usize - 1;
    BACKOFF_STEPS.get(index).copied().unwrap_or(STEADY_RETRY)
}

/// What to do after a transient failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryPlan {
    /// Keep the credential and try again at this instant.
    RetryAt(OffsetDateTime),
    /// The grace period after expiry is over: the credential is given up.
    GiveUp,
}

/// The plan after the `failures`-th consecutive transient failure (counting this one).
pub fn after_transient_failure(failures: u32, expires_at: Option<OffsetDateTime>, now: OffsetDateTime) -> RetryPlan {
    let mut at = now + span(backoff(failures));
    if let Some(expires) = expires_at {
        let deadline = expires + span(GRACE_AFTER_EXPIRY);
        if now >= deadline {
            return RetryPlan::GiveUp;
        }
        if expires > now && at > expires {
            // The token still works: the next try must come before it stops working.
            at = expires;
        }
        // The last try happens at the deadline; a failure then gives up.
        at = at.min(deadline);
    }
    RetryPlan::RetryAt(at)
}
