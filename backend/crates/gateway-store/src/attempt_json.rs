//! The JSON shape of `model_requests.attempts`: the store's edge for the domain's
//! [`Attempt`]. Keys are camelCase, times are unix milliseconds.

use gateway_core::domain::Attempt;
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AttemptJson {
    n: u32,
    provider: &'static str,
    account_id: i64,
    started_at: i64,
    duration_ms: Option<u64>,
    outcome: &'static str,
    http_status: Option<u16>,
    send_state: &'static str,
}

impl AttemptJson {
    pub(crate) fn of(attempt: &Attempt) -> Self {
        Self {
            n: attempt.number,
            provider: attempt.provider.as_str(),
            account_id: attempt.account.0,
            started_at: i64::try_from(attempt.started_at.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX),
            duration_ms: attempt.duration_ms,
            outcome: attempt.outcome.as_str(),
            http_status: attempt.http_status,
            send_state: attempt.send_state.as_str(),
        }
    }

    pub(crate) fn all(attempts: &[Attempt]) -> Vec<Self> {
        attempts.iter().map(Self::of).collect()
    }
}
