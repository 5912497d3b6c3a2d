//! SQL fragments and row mapping of the usage views over `model_requests`.

use sqlx::Postgres;
use sqlx::postgres::{PgArguments, PgRow};
use sqlx::query::Query;

use gateway_admin::usage::{UsageFilter, UsageTotals};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::{ColumnRead, u64_of};

/// The filter as `WHERE` conditions over `m` with parameters `$1..$10` (see [`bind_filter`]).
macro_rules! usage_filter {
    () => {
        " WHERE ($1::timestamptz IS NULL OR m.started_at >= $1) \
          AND ($2::timestamptz IS NULL OR m.started_at < $2) \
          AND ($3::bigint IS NULL OR m.client_key_id = $3) \
          AND ($4::bigint IS NULL OR m.account_id = $4) \
          AND ($5::text IS NULL OR m.provider = $5) \
          AND ($6::text IS NULL OR m.requested_model = $6 OR m.upstream_model = $6) \
          AND ($7::text IS NULL OR m.status = $7) \
          AND ($8::int IS NULL OR m.http_status = $8) \
          AND ($9::text IS NULL OR m.transport = $9) \
          AND ($10::text IS NULL OR m.operation = $10) "
    };
}
pub(crate) use usage_filter;

/// Counters and exact percentiles of the selected rows.
macro_rules! usage_totals {
    () => {
        " count(*) AS requests, \
          count(*) FILTER (WHERE m.status = 'completed') AS completed, \
          count(*) FILTER (WHERE m.status = 'failed') AS failed, \
          count(*) FILTER (WHERE m.status = 'incomplete') AS incomplete, \
          count(*) FILTER (WHERE m.status = 'cancelled') AS cancelled, \
          count(*) FILTER (WHERE m.status = 'running') AS running, \
          count(*) FILTER (WHERE m.http_status BETWEEN 400 AND 499) AS client_errors, \
          COALESCE(sum(m.input_tokens), 0)::bigint AS input_tokens, \
          COALESCE(sum(m.cached_input_tokens), 0)::bigint AS cached_input_tokens, \
          COALESCE(sum(m.output_tokens), 0)::bigint AS output_tokens, \
          COALESCE(sum(m.reasoning_tokens), 0)::bigint AS reasoning_tokens, \
          COALESCE(sum(m.total_tokens), 0)::bigint AS total_tokens, \
          COALESCE(sum(m.cost_nano_usd), 0)::bigint AS cost_nano_usd, \
          percentile_cont(0.5) WITHIN GROUP (ORDER BY m.total_ms) AS total_ms_p50, \
          percentile_cont(0.95) WITHIN GROUP (ORDER BY m.total_ms) AS total_ms_p95, \
          percentile_cont(0.99) WITHIN GROUP (ORDER BY m.total_ms) AS total_ms_p99, \
          percentile_cont(0.5) WITHIN GROUP (ORDER BY m.first_token_ms) AS first_token_ms_p50, \
          percentile_cont(0.95) WITHIN GROUP (ORDER BY m.first_token_ms) AS first_token_ms_p95 "
    };
}
pub(crate) use usage_totals;

/// The request list's select list (joins the key name and the account e-mail; the detail reads
/// the whole row: `rows::usage::REQUEST_DETAIL`).
macro_rules! request_summary_select {
    () => {
        "SELECT m.id, m.started_at, m.finished_at, m.status, m.send_state, m.http_status, m.error_code, \
         m.client_key_id, k.name AS client_key_name, m.account_id, a.email AS account_email, m.provider, \
         m.requested_model, m.upstream_model, m.operation, m.transport, m.stream, m.input_tokens, \
         m.cached_input_tokens, m.output_tokens, m.reasoning_tokens, m.total_tokens, m.cost_nano_usd, \
         m.connect_ms, m.headers_ms, m.first_event_ms, m.first_token_ms, m.total_ms, \
         jsonb_array_length(m.attempts) AS attempt_count, m.routing_scope \
         FROM model_requests m LEFT JOIN client_api_keys k ON k.id = m.client_key_id \
         LEFT JOIN provider_accounts a ON a.id = m.account_id "
    };
}
pub(crate) use request_summary_select;

pub(crate) fn bind_filter<'q>(
    query: Query<'q, Postgres, PgArguments>,
    f: &'q UsageFilter,
) -> Query<'q, Postgres, PgArguments> {
    query
        .bind(f.from)
        .bind(f.to)
        .bind(f.client_key.map(|k| k.0))
        .bind(f.account.map(|a| a.0))
        .bind(f.provider.map(|p| p.as_str()))
        .bind(f.model.as_deref())
        .bind(f.status.map(|s| s.as_str()))
        .bind(f.http_status.map(i32::from))
        .bind(f.transport.map(|t| t.as_str()))
        .bind(f.operation.as_deref())
}

fn count(row: &PgRow, name: &str) -> Result<u64, StorageError> {
    u64_of(row.col(name)?, name)
}

pub(crate) fn totals_from_row(row: &PgRow) -> Result<UsageTotals, StorageError> {
    Ok(UsageTotals {
        requests: count(row, "requests")?,
        completed: count(row, "completed")?,
        failed: count(row, "failed")?,
        incomplete: count(row, "incomplete")?,
        cancelled: count(row, "cancelled")?,
        running: count(row, "running")?,
        client_errors: count(row, "client_errors")?,
        input_tokens: count(row, "input_tokens")?,
        cached_input_tokens: count(row, "cached_input_tokens")?,
        output_tokens: count(row, "output_tokens")?,
        reasoning_tokens: count(row, "reasoning_tokens")?,
        total_tokens: count(row, "total_tokens")?,
        cost_nano_usd: row.col("cost_nano_usd")?,
        total_ms_p50: row.col("total_ms_p50")?,
        total_ms_p95: row.col("total_ms_p95")?,
        total_ms_p99: row.col("total_ms_p99")?,
        first_token_ms_p50: row.col("first_token_ms_p50")?,
        first_token_ms_p95: row.col("first_token_ms_p95")?,
    })
}
