//! The refusal a client gets when no account of its pool could take the request: 503
//! `no_available_account` with `Retry-After` set to the earliest moment an account of the pool
//! is expected back — never longer than that, never absent.

use gateway_protocol::{ApiError, ErrorCode};

use super::Attempts;
use crate::coordination::UnixMillis;
use crate::engine::RequestContext;

/// The moments accounts are expected back, as this request learned them.
#[derive(Debug, Default)]
pub(super) struct BackTimes {
    earliest: Option<UnixMillis>,
}

impl BackTimes {
    /// An account is expected back at `at`.
    pub(super) fn note(&mut self, at: UnixMillis) {
        self.earliest = Some(self.earliest.map_or(at, |earliest| earliest.min(at)));
    }

    pub(super) fn earliest(&self) -> Option<UnixMillis> {
        self.earliest
    }
}

/// The pool's refusal at `now`: the earliest of what the attempts learned (cooldowns given,
/// verdicts of the acquires) and of the accounts this request did not try (usable now, or when
/// their quota resets).
pub(super) fn refusal(ctx: &RequestContext, state: &Attempts, now: UnixMillis) -> ApiError {
    let mut back = BackTimes::default();
    if let Some(at) = state.back.earliest() {
        back.note(at);
    }
    let excluded: Vec<_> = state.tried.iter().chain(&state.skipped).copied().collect();
    let now_unix = i64::try_from(now.0 / 1000).unwrap_or(i64::MAX);
    for (_, pool) in &ctx.plan.steps {
        if let Some(at) = pool.earliest_usable(&excluded, now_unix) {
            back.note(UnixMillis(u64::try_from(at).unwrap_or(0).saturating_mul(1000)));
        }
    }
    let seconds = back.earliest().map_or(1, |at| at.0.saturating_sub(now.0).div_ceil(1000).max(1));
    ApiError::new(ErrorCode::NoAvailableAccount, "No account is available to serve this request right now.")
        .with_retry_after(seconds)
}
