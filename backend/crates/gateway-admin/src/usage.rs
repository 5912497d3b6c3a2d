//! Usage views over `model_requests`: filters, list rows, details, totals, breakdowns and time
//! buckets. Aggregation happens in the store (SQL); percentiles are exact
//! (`percentile_cont` over the stored durations of the filtered rows).

use serde::Serialize;
use time::OffsetDateTime;

use gateway_core::domain::{
    AccountId, ClientKeyId, LatencySplits, ModelRequestRecord, ProviderKind, RequestId, RequestStatus, RoutingScope,
    SendState, TokenUsage, Transport,
};

/// Which requests a view covers; `None` = no restriction. `from` inclusive, `to` exclusive.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageFilter {
    pub from: Option<OffsetDateTime>,
    pub to: Option<OffsetDateTime>,
    pub client_key: Option<ClientKeyId>,
    pub account: Option<AccountId>,
    pub provider: Option<ProviderKind>,
    /// Requested or upstream model, exact.
    pub model: Option<String>,
    pub status: Option<RequestStatus>,
    pub http_status: Option<u16>,
    pub transport: Option<Transport>,
    pub operation: Option<String>,
}

/// Keyset position in the newest-first request list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestCursor {
    pub started_at: OffsetDateTime,
    pub id: RequestId,
}

/// One row of the request list: a projection of the row (the list query reads only these
/// columns, the attempts as their count), with the key's and the account's names joined in.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestSummary {
    pub id: RequestId,
    pub started_at: OffsetDateTime,
    pub finished_at: Option<OffsetDateTime>,
    pub status: RequestStatus,
    pub send_state: SendState,
    pub http_status: Option<u16>,
    pub error_code: Option<String>,
    pub client_key_id: Option<ClientKeyId>,
    pub client_key_name: Option<String>,
    pub account_id: Option<AccountId>,
    pub account_email: Option<String>,
    pub provider: Option<ProviderKind>,
    pub requested_model: String,
    pub upstream_model: Option<String>,
    pub operation: String,
    pub transport: Transport,
    pub stream: bool,
    pub usage: Option<TokenUsage>,
    pub cost_nano_usd: Option<i64>,
    pub latency: LatencySplits,
    pub attempt_count: u32,
    pub routing_scope: RoutingScope,
}

/// One request with everything the detail view shows: the stored row as the core reads it, and
/// the names the view joins in (as they are now; `None` once the key or account is gone).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestDetail {
    pub request: ModelRequestRecord,
    pub client_key_name: Option<String>,
    pub account_email: Option<String>,
}

impl RequestDetail {
    /// Whether the attempts list is known to be complete: not while the request runs, nor when
    /// the row was closed by recovery (`stale_recovered`, `replica_lost`, `replica_restarted`:
    /// its process's last observations may have been lost with it).
    pub fn attempts_complete(&self) -> bool {
        self.request.status != RequestStatus::Running
            && !matches!(
                self.request.outcome.error_code.as_deref(),
                Some("stale_recovered" | "replica_lost" | "replica_restarted")
            )
    }

    /// The request as a row of the list.
    pub fn summary(&self) -> RequestSummary {
        let r = &self.request;
        RequestSummary {
            id: r.start.id,
            started_at: r.start.started_at,
            finished_at: r.finished_at,
            status: r.status,
            send_state: r.send_state,
            http_status: r.outcome.http_status,
            error_code: r.outcome.error_code.clone(),
            client_key_id: r.start.client_key_id,
            client_key_name: self.client_key_name.clone(),
            account_id: r.account_id,
            account_email: self.account_email.clone(),
            provider: r.provider,
            requested_model: r.start.requested_model.clone(),
            upstream_model: r.outcome.upstream_model.clone(),
            operation: r.start.operation.clone(),
            transport: r.start.transport,
            stream: r.start.stream,
            usage: r.outcome.usage,
            cost_nano_usd: r.outcome.cost.map(|c| c.0),
            latency: r.latency,
            attempt_count: u32::try_from(r.attempts.len()).unwrap_or(u32::MAX),
            routing_scope: r.start.routing.scope(),
        }
    }
}

/// Requests started in a window that have finished, and how many of those failed: two counts
/// the store computes without reading rows into the process (the error-rate rule reads them on
/// every evaluation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutcomeCounts {
    pub finished: u64,
    pub failed: u64,
}

/// Counters and latency percentiles of a set of requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageTotals {
    pub requests: u64,
    pub completed: u64,
    pub failed: u64,
    pub incomplete: u64,
    pub cancelled: u64,
    pub running: u64,
    /// Requests answered with a 4xx status (caller errors; excluded from the success rate).
    pub client_errors: u64,
    pub input_tokens: u64,
    pub cached_input_tokens: u64,
    pub output_tokens: u64,
    pub reasoning_tokens: u64,
    pub total_tokens: u64,
    pub cost_nano_usd: i64,
    pub total_ms_p50: Option<f64>,
    pub total_ms_p95: Option<f64>,
    pub total_ms_p99: Option<f64>,
    pub first_token_ms_p50: Option<f64>,
    pub first_token_ms_p95: Option<f64>,
}

gateway_core::closed_set!(
    /// What a usage breakdown groups by.
    UsageDimension as "usage dimension" {
        Model = "model",
        Account = "account",
        Key = "key",
        Provider = "provider",
        Status = "status",
        Operation = "operation",
        Transport = "transport",
        ErrorCode = "error_code",
    }
);

/// One group of a breakdown: `key` is the grouped value (an id for accounts and keys),
/// `label` a display name when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageGroup {
    pub key: Option<String>,
    pub label: Option<String>,
    pub totals: UsageTotals,
}

gateway_core::closed_set!(
    /// Width of a trend bucket.
    BucketWidth as "bucket width" {
        Minute = "1m",
        FiveMinutes = "5m",
        FifteenMinutes = "15m",
        Hour = "1h",
        Day = "1d",
    }
);

impl BucketWidth {
    pub fn seconds(self) -> i64 {
        match self {
            Self::Minute => 60,
            Self::FiveMinutes => 300,
            Self::FifteenMinutes => 900,
            Self::Hour => 3600,
            Self::Day => 86_400,
        }
    }

    /// The widest bucket that keeps a range under ~400 points.
    pub fn automatic(range: time::Duration) -> Self {
        let seconds = range.whole_seconds();
        [Self::Minute, Self::FiveMinutes, Self::FifteenMinutes, Self::Hour]
            .into_iter()
            .find(|w| seconds / w.seconds() <= 400)
            .unwrap_or(Self::Day)
    }
}

/// One time bucket; `start` is the bucket's start in the requested zone.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageBucket {
    pub start: OffsetDateTime,
    pub totals: UsageTotals,
}

/// Day and month boundaries in an IANA zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalendarStarts {
    pub day: OffsetDateTime,
    pub month: OffsetDateTime,
}
