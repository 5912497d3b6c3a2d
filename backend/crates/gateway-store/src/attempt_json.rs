//! The JSON shape of `model_requests.attempts`: the store's edge for the domain's
//! [`Attempt`], written and read back by both dialects. Keys are camelCase, times are unix
//! milliseconds (an attempt's start reads back at millisecond precision).

use std::borrow::Cow;

use gateway_core::domain::{AccountId, Attempt};
use gateway_core::ports::StorageError;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::postgres::column_values::closed;
use crate::postgres::error_mapping::corrupt;

const COLUMN: &str = "model_requests.attempts";

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AttemptJson {
    n: u32,
    provider: Cow<'static, str>,
    account_id: i64,
    started_at: i64,
    duration_ms: Option<u64>,
    outcome: Cow<'static, str>,
    http_status: Option<u16>,
    send_state: Cow<'static, str>,
}

impl AttemptJson {
    pub(crate) fn of(attempt: &Attempt) -> Self {
        Self {
            n: attempt.number,
            provider: Cow::Borrowed(attempt.provider.as_str()),
            account_id: attempt.account.0,
            started_at: i64::try_from(attempt.started_at.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX),
            duration_ms: attempt.duration_ms,
            outcome: Cow::Borrowed(attempt.outcome.as_str()),
            http_status: attempt.http_status,
            send_state: Cow::Borrowed(attempt.send_state.as_str()),
        }
    }

    pub(crate) fn all(attempts: &[Attempt]) -> Vec<Self> {
        attempts.iter().map(Self::of).collect()
    }

    /// The domain attempt; an unknown provider, outcome or send state is corrupt.
    fn attempt(self) -> Result<Attempt, StorageError> {
        let started_at = OffsetDateTime::from_unix_timestamp_nanos(i128::from(self.started_at) * 1_000_000)
            .map_err(|e| corrupt(COLUMN, e))?;
        Ok(Attempt {
            number: self.n,
            provider: closed(&self.provider, COLUMN)?,
            account: AccountId(self.account_id),
            started_at,
            duration_ms: self.duration_ms,
            outcome: closed(&self.outcome, COLUMN)?,
            http_status: self.http_status,
            send_state: closed(&self.send_state, COLUMN)?,
        })
    }
}

/// The attempts of a stored row (its `attempts` JSON array).
pub(crate) fn attempts_from_json(value: serde_json::Value) -> Result<Vec<Attempt>, StorageError> {
    let stored: Vec<AttemptJson> = serde_json::from_value(value).map_err(|e| corrupt(COLUMN, e))?;
    stored.into_iter().map(AttemptJson::attempt).collect()
}
