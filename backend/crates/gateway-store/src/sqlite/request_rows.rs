//! `model_requests` values as the SQLite statements bind them: a start and an update (reading a
//! row back is shared with PostgreSQL: `rows/requests.rs`).

use sqlx::sqlite::SqliteArguments;

use gateway_core::domain::{RequestId, RequestStart, RequestStatus, RequestUpdate, RoutingSnapshot, SendState};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::{opt_int4, opt_int8};
use crate::sqlite::values::{micros, now_micros, opt_micros};

type Query<'q> = sqlx::query::Query<'q, sqlx::Sqlite, SqliteArguments>;

/// An update's values as bound ($1..$26).
pub(crate) struct UpdateBinds {
    id: uuid::Uuid,
    status: &'static str,
    send_state: &'static str,
    provider: Option<&'static str>,
    account_id: Option<i64>,
    upstream_model: Option<String>,
    http_status: Option<i64>,
    error_code: Option<String>,
    attempts: Option<String>,
    tokens: [Option<i64>; 5],
    cost_nano_usd: Option<i64>,
    service_tier: Option<String>,
    client_response_id: Option<Vec<u8>>,
    upstream_response_id: Option<Vec<u8>>,
    downstream_committed_at: Option<i64>,
    finished_at: Option<i64>,
    latency: [Option<i32>; 5],
    now: i64,
}

impl UpdateBinds {
    pub(crate) fn of(update: &RequestUpdate) -> Result<Self, StorageError> {
        let usage = update.usage.as_ref();
        let l = &update.latency;
        Ok(Self {
            id: update.id.0,
            status: update.status.as_str(),
            send_state: update.send_state.as_str(),
            provider: update.provider.map(|p| p.as_str()),
            account_id: update.account_id.map(|a| a.0),
            upstream_model: update.upstream_model.clone(),
            http_status: update.http_status.map(i64::from),
            error_code: update.error_code.clone(),
            attempts: update
                .attempts
                .as_deref()
                .map(|a| serde_json::to_string(&crate::attempt_json::AttemptJson::all(a)).unwrap_or_default()),
            tokens: [
                opt_int8(usage.map(|u| u.input_tokens), "model_requests.input_tokens")?,
                opt_int8(usage.map(|u| u.cached_input_tokens), "model_requests.cached_input_tokens")?,
                opt_int8(usage.map(|u| u.output_tokens), "model_requests.output_tokens")?,
                opt_int8(usage.map(|u| u.reasoning_tokens), "model_requests.reasoning_tokens")?,
                opt_int8(usage.map(|u| u.total_tokens), "model_requests.total_tokens")?,
            ],
            cost_nano_usd: update.cost.map(|c| c.0),
            service_tier: update.service_tier.clone(),
            client_response_id: update.client_response_id.clone(),
            upstream_response_id: update.upstream_response_id.clone(),
            downstream_committed_at: opt_micros(update.downstream_committed_at),
            finished_at: opt_micros(update.finished_at),
            latency: [
                opt_int4(l.connect_ms, "model_requests.connect_ms")?,
                opt_int4(l.headers_ms, "model_requests.headers_ms")?,
                opt_int4(l.first_event_ms, "model_requests.first_event_ms")?,
                opt_int4(l.first_token_ms, "model_requests.first_token_ms")?,
                opt_int4(l.total_ms, "model_requests.total_ms")?,
            ],
            now: now_micros(),
        })
    }
}

impl UpdateBinds {
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
            tokens: [None; 5],
            cost_nano_usd: None,
            service_tier: None,
            client_response_id: None,
            upstream_response_id: None,
            downstream_committed_at: None,
            finished_at: None,
            latency: [None; 5],
            now: now_micros(),
        }
    }
}

/// Binds $1..$26 in the order the statements use.
pub(crate) fn bind_update<'q>(query: Query<'q>, u: &UpdateBinds) -> Query<'q> {
    let mut q = query
        .bind(u.id)
        .bind(u.status)
        .bind(u.send_state)
        .bind(u.provider)
        .bind(u.account_id)
        .bind(u.upstream_model.clone())
        .bind(u.http_status)
        .bind(u.error_code.clone())
        .bind(u.attempts.clone());
    for tokens in u.tokens {
        q = q.bind(tokens);
    }
    q = q
        .bind(u.cost_nano_usd)
        .bind(u.service_tier.clone())
        .bind(u.client_response_id.clone())
        .bind(u.upstream_response_id.clone())
        .bind(u.downstream_committed_at)
        .bind(u.finished_at);
    for ms in u.latency {
        q = q.bind(ms);
    }
    q.bind(u.now)
}

/// Binds the start's own columns, $27..$37.
pub(crate) fn bind_start<'q>(query: Query<'q>, start: &RequestStart) -> Query<'q> {
    let (scope, groups) = match &start.routing {
        RoutingSnapshot::All => ("all", serde_json::Value::Array(Vec::new())),
        RoutingSnapshot::Groups(groups) => (
            "groups",
            serde_json::Value::Array(
                groups.iter().map(|g| serde_json::json!({ "id": g.id.0, "name": g.name })).collect(),
            ),
        ),
    };
    query
        .bind(start.client_key_id.map(|k| k.0))
        .bind(start.requested_model.clone())
        .bind(start.operation.clone())
        .bind(start.transport.as_str())
        .bind(start.stream)
        .bind(scope)
        .bind(groups.to_string())
        .bind(micros(start.started_at))
        .bind(micros(start.deadline_at))
        .bind(start.runner.as_ref().map(|r| r.replica.as_str().to_owned()))
        .bind(start.runner.as_ref().map(|r| r.boot.0))
}
