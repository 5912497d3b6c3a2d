//! `model_requests` values as the SQLite statements bind them: a start and an update (the
//! update's flattening and reading a row back are shared with PostgreSQL:
//! `rows/request_update.rs`, `rows/requests.rs`).

use sqlx::sqlite::SqliteArguments;

use gateway_core::domain::{RequestStart, RoutingSnapshot};

use crate::rows::request_update::UpdateColumns;
use crate::sqlite::values::{micros, opt_micros};

type Query<'q> = sqlx::query::Query<'q, sqlx::Sqlite, SqliteArguments>;

/// Binds an update's columns ($1..$25, the shared flattening) and the write time ($26), in the
/// order the statements use.
pub(crate) fn bind_update<'q>(query: Query<'q>, u: &'q UpdateColumns<'q>, now: i64) -> Query<'q> {
    query
        .bind(u.id)
        .bind(u.status)
        .bind(u.send_state)
        .bind(u.provider)
        .bind(u.account_id)
        .bind(u.upstream_model)
        .bind(u.http_status)
        .bind(u.error_code)
        .bind(u.attempts.as_ref().map(|a| serde_json::to_string(a).unwrap_or_default()))
        .bind(u.input_tokens)
        .bind(u.cached_input_tokens)
        .bind(u.output_tokens)
        .bind(u.reasoning_tokens)
        .bind(u.total_tokens)
        .bind(u.cost_nano_usd)
        .bind(u.service_tier)
        .bind(u.client_response_id)
        .bind(u.upstream_response_id)
        .bind(opt_micros(u.downstream_committed_at))
        .bind(opt_micros(u.finished_at))
        .bind(u.connect_ms)
        .bind(u.headers_ms)
        .bind(u.first_event_ms)
        .bind(u.first_token_ms)
        .bind(u.total_ms)
        .bind(now)
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
