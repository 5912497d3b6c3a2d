//! Wire shapes of the usage endpoints.

use gateway_admin::usage::{RequestSummary, UsageBucket, UsageGroup, UsageTotals};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::admin::dto::{Provider, RequestStatusName, RoutingScopeName, SendStateName, TransportName};

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokensView {
    pub input: u64,
    pub cached_input: u64,
    pub output: u64,
    pub reasoning: u64,
    pub total: u64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LatencyView {
    pub connect_ms: Option<u32>,
    pub headers_ms: Option<u32>,
    pub first_event_ms: Option<u32>,
    pub first_token_ms: Option<u32>,
    pub total_ms: Option<u32>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordItem {
    pub id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub finished_at: Option<OffsetDateTime>,
    pub status: RequestStatusName,
    pub send_state: SendStateName,
    pub http_status: Option<u16>,
    pub error_code: Option<String>,
    pub key_id: Option<i64>,
    pub key_name: Option<String>,
    pub account_id: Option<i64>,
    pub account_email: Option<String>,
    pub provider: Option<Provider>,
    pub requested_model: String,
    pub upstream_model: Option<String>,
    pub operation: String,
    pub transport: TransportName,
    pub stream: bool,
    pub tokens: Option<TokensView>,
    /// Estimated, nano-USD.
    pub cost_nano_usd: Option<i64>,
    pub latency: LatencyView,
    pub attempts: u32,
    /// The key's scope when the request started.
    pub routing_scope: RoutingScopeName,
}

impl From<&RequestSummary> for RecordItem {
    fn from(r: &RequestSummary) -> Self {
        Self {
            id: r.id.to_string(),
            started_at: r.started_at,
            finished_at: r.finished_at,
            status: r.status.into(),
            send_state: r.send_state.into(),
            http_status: r.http_status,
            error_code: r.error_code.clone(),
            key_id: r.client_key_id.map(|k| k.0),
            key_name: r.client_key_name.clone(),
            account_id: r.account_id.map(|a| a.0),
            account_email: r.account_email.clone(),
            provider: r.provider.map(Provider::from),
            requested_model: r.requested_model.clone(),
            upstream_model: r.upstream_model.clone(),
            operation: r.operation.clone(),
            transport: r.transport.into(),
            stream: r.stream,
            tokens: r.usage.map(|u| TokensView {
                input: u.input_tokens,
                cached_input: u.cached_input_tokens,
                output: u.output_tokens,
                reasoning: u.reasoning_tokens,
                total: u.total_tokens,
            }),
            cost_nano_usd: r.cost_nano_usd,
            latency: LatencyView {
                connect_ms: r.latency.connect_ms,
                headers_ms: r.latency.headers_ms,
                first_event_ms: r.latency.first_event_ms,
                first_token_ms: r.latency.first_token_ms,
                total_ms: r.latency.total_ms,
            },
            attempts: r.attempt_count,
            routing_scope: r.routing_scope.into(),
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordList {
    pub items: Vec<RecordItem>,
    pub next_cursor: Option<String>,
}

/// Counters and exact latency percentiles (ms) of a set of requests.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TotalsView {
    pub requests: u64,
    pub completed: u64,
    pub failed: u64,
    pub incomplete: u64,
    pub cancelled: u64,
    pub running: u64,
    /// 4xx answers (caller errors), excluded from the success rate.
    pub client_errors: u64,
    /// completed / (requests − running − client errors); `null` without such requests.
    pub success_rate: Option<f64>,
    pub input_tokens: u64,
    pub cached_input_tokens: u64,
    pub output_tokens: u64,
    pub reasoning_tokens: u64,
    pub total_tokens: u64,
    /// Estimated, nano-USD.
    pub cost_nano_usd: i64,
    pub total_ms_p50: Option<f64>,
    pub total_ms_p95: Option<f64>,
    pub total_ms_p99: Option<f64>,
    pub first_token_ms_p50: Option<f64>,
    pub first_token_ms_p95: Option<f64>,
}

impl From<&UsageTotals> for TotalsView {
    fn from(t: &UsageTotals) -> Self {
        let base = t.requests.saturating_sub(t.running).saturating_sub(t.client_errors);
        Self {
            requests: t.requests,
            completed: t.completed,
            failed: t.failed,
            incomplete: t.incomplete,
            cancelled: t.cancelled,
            running: t.running,
            client_errors: t.client_errors,
            success_rate: (base > 0).then(|| (t.completed.min(base)) as f64 / base as f64),
            input_tokens: t.input_tokens,
            cached_input_tokens: t.cached_input_tokens,
            output_tokens: t.output_tokens,
            reasoning_tokens: t.reasoning_tokens,
            total_tokens: t.total_tokens,
            cost_nano_usd: t.cost_nano_usd,
            total_ms_p50: t.total_ms_p50,
            total_ms_p95: t.total_ms_p95,
            total_ms_p99: t.total_ms_p99,
            first_token_ms_p50: t.first_token_ms_p50,
            first_token_ms_p95: t.first_token_ms_p95,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InsightGroup {
    /// The grouped value (an id for accounts and keys); `null` for requests without one.
    pub key: Option<String>,
    /// Display name (account e-mail, key name) when there is one.
    pub label: Option<String>,
    pub totals: TotalsView,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InsightList {
    pub group_by: String,
    pub totals: TotalsView,
    pub groups: Vec<InsightGroup>,
}

pub fn insight_list(group_by: &str, totals: &UsageTotals, groups: &[UsageGroup]) -> InsightList {
    InsightList {
        group_by: group_by.to_owned(),
        totals: totals.into(),
        groups: groups
            .iter()
            .map(|g| InsightGroup { key: g.key.clone(), label: g.label.clone(), totals: (&g.totals).into() })
            .collect(),
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrendPoint {
    /// Bucket start (the zone's wall clock, as an instant).
    #[serde(with = "time::serde::rfc3339")]
    pub start: OffsetDateTime,
    pub totals: TotalsView,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrendView {
    /// `1m`, `5m`, `15m`, `1h` or `1d`.
    pub bucket: String,
    pub tz: String,
    #[serde(with = "time::serde::rfc3339")]
    pub from: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub to: OffsetDateTime,
    /// Buckets with requests, ascending; missing buckets are gaps.
    pub points: Vec<TrendPoint>,
}

pub fn trend_view(
    bucket: &str,
    tz: &str,
    from: OffsetDateTime,
    to: OffsetDateTime,
    buckets: &[UsageBucket],
) -> TrendView {
    TrendView {
        bucket: bucket.to_owned(),
        tz: tz.to_owned(),
        from,
        to,
        points: buckets.iter().map(|b| TrendPoint { start: b.start, totals: (&b.totals).into() }).collect(),
    }
}
