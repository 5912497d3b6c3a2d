//! A [`RequestUpdate`] flattened to the `model_requests` columns it writes, once for both
//! dialects, and the folding of a batch's updates into one per request. PostgreSQL sends the
//! flattened update as a JSON record of a `jsonb_to_recordset` batch (its `Serialize`: bytes as
//! hex, times as RFC 3339); SQLite binds the same fields in column order
//! (`sqlite/request_rows.rs`).

use std::collections::HashMap;

use serde::{Serialize, Serializer};
use time::OffsetDateTime;

use gateway_core::domain::{RequestId, RequestStatus, RequestUpdate, SendState};
use gateway_core::ports::StorageError;

use crate::attempt_json::AttemptJson;
use crate::postgres::column_values::{opt_int4, opt_int8};

/// An update's column values, named as the columns are.
#[derive(Serialize)]
pub(crate) struct UpdateColumns<'a> {
    pub(crate) id: uuid::Uuid,
    pub(crate) status: &'static str,
    pub(crate) send_state: &'static str,
    pub(crate) provider: Option<&'static str>,
    pub(crate) account_id: Option<i64>,
    pub(crate) upstream_model: Option<&'a str>,
    pub(crate) http_status: Option<i16>,
    pub(crate) error_code: Option<&'a str>,
    pub(crate) attempts: Option<Vec<AttemptJson>>,
    pub(crate) input_tokens: Option<i64>,
    pub(crate) cached_input_tokens: Option<i64>,
    pub(crate) output_tokens: Option<i64>,
    pub(crate) reasoning_tokens: Option<i64>,
    pub(crate) total_tokens: Option<i64>,
    pub(crate) cost_nano_usd: Option<i64>,
    pub(crate) service_tier: Option<&'a str>,
    #[serde(serialize_with = "hex")]
    pub(crate) client_response_id: Option<&'a [u8]>,
    #[serde(serialize_with = "hex")]
    pub(crate) upstream_response_id: Option<&'a [u8]>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub(crate) downstream_committed_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub(crate) finished_at: Option<OffsetDateTime>,
    pub(crate) connect_ms: Option<i32>,
    pub(crate) headers_ms: Option<i32>,
    pub(crate) first_event_ms: Option<i32>,
    pub(crate) first_token_ms: Option<i32>,
    pub(crate) total_ms: Option<i32>,
}

impl<'a> UpdateColumns<'a> {
    pub(crate) fn of(update: &'a RequestUpdate) -> Result<Self, StorageError> {
        let outcome = &update.outcome;
        let usage = outcome.usage.as_ref();
        let latency = &update.latency;
        Ok(Self {
            id: update.id.0,
            status: update.status.as_str(),
            send_state: update.send_state.as_str(),
            provider: update.provider.map(|p| p.as_str()),
            account_id: update.account_id.map(|a| a.0),
            upstream_model: outcome.upstream_model.as_deref(),
            http_status: outcome.http_status.map(|s| i16::try_from(s).unwrap_or(i16::MAX)),
            error_code: outcome.error_code.as_deref(),
            attempts: update.attempts.as_deref().map(AttemptJson::all),
            input_tokens: opt_int8(usage.map(|u| u.input_tokens), "model_requests.input_tokens")?,
            cached_input_tokens: opt_int8(usage.map(|u| u.cached_input_tokens), "model_requests.cached_input_tokens")?,
            output_tokens: opt_int8(usage.map(|u| u.output_tokens), "model_requests.output_tokens")?,
            reasoning_tokens: opt_int8(usage.map(|u| u.reasoning_tokens), "model_requests.reasoning_tokens")?,
            total_tokens: opt_int8(usage.map(|u| u.total_tokens), "model_requests.total_tokens")?,
            cost_nano_usd: outcome.cost.map(|c| c.0),
            service_tier: outcome.service_tier.as_deref(),
            client_response_id: outcome.client_response_id.as_deref(),
            upstream_response_id: outcome.upstream_response_id.as_deref(),
            downstream_committed_at: update.downstream_committed_at,
            finished_at: update.finished_at,
            connect_ms: opt_int4(latency.connect_ms, "model_requests.connect_ms")?,
            headers_ms: opt_int4(latency.headers_ms, "model_requests.headers_ms")?,
            first_event_ms: opt_int4(latency.first_event_ms, "model_requests.first_event_ms")?,
            first_token_ms: opt_int4(latency.first_token_ms, "model_requests.first_token_ms")?,
            total_ms: opt_int4(latency.total_ms, "model_requests.total_ms")?,
        })
    }

    /// A fresh row: `running`, `not_sent`, nothing else.
    pub(crate) fn running(id: RequestId) -> Self {
        Self {
            id: id.0,
            status: RequestStatus::Running.as_str(),
            send_state: SendState::NotSent.as_str(),
            provider: None,
            account_id: None,
            upstream_model: None,
            http_status: None,
            error_code: None,
            attempts: None,
            input_tokens: None,
            cached_input_tokens: None,
            output_tokens: None,
            reasoning_tokens: None,
            total_tokens: None,
            cost_nano_usd: None,
            service_tier: None,
            client_response_id: None,
            upstream_response_id: None,
            downstream_committed_at: None,
            finished_at: None,
            connect_ms: None,
            headers_ms: None,
            first_event_ms: None,
            first_token_ms: None,
            total_ms: None,
        }
    }
}

fn hex<S: Serializer>(bytes: &Option<&[u8]>, serializer: S) -> Result<S::Ok, S::Error> {
    match bytes {
        Some(bytes) => serializer.collect_str(&Hex(bytes)),
        None => serializer.serialize_none(),
    }
}

struct Hex<'a>(&'a [u8]);

impl std::fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// Folds the updates of one batch into one per request, in order: later values win, a value a
/// later update leaves out keeps the earlier one, the watermark is the highest seen, and once an
/// update is terminal a later `running` one cannot reopen it.
pub(crate) fn fold(updates: &[RequestUpdate]) -> Vec<RequestUpdate> {
    let mut folded: Vec<RequestUpdate> = Vec::with_capacity(updates.len());
    let mut index: HashMap<RequestId, usize> = HashMap::with_capacity(updates.len());
    for update in updates {
        match index.get(&update.id) {
            None => {
                index.insert(update.id, folded.len());
                folded.push(update.clone());
            }
            Some(&i) => {
                let next = later(&folded[i], update);
                folded[i] = next;
            }
        }
    }
    folded
}

/// `update` applied after `earlier`.
fn later(earlier: &RequestUpdate, update: &RequestUpdate) -> RequestUpdate {
    let mut next = update.clone();
    next.send_state = earlier.send_state.raise(update.send_state);
    if earlier.status.is_terminal() {
        next.status = earlier.status;
    }
    macro_rules! keep {
        ($next:expr, $earlier:expr; $($field:ident),*) => {
            $( if $next.$field.is_none() { $next.$field = $earlier.$field.clone(); } )*
        };
    }
    keep!(next, earlier; provider, account_id, attempts, downstream_committed_at, finished_at);
    keep!(next.outcome, earlier.outcome;
        http_status, error_code, usage, cost, service_tier, upstream_model, client_response_id, upstream_response_id);
    keep!(next.latency, earlier.latency; connect_ms, headers_ms, first_event_ms, first_token_ms, total_ms);
    next
}
