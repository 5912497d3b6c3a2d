//! SQL fragments and row mapping of the usage views over `model_requests`, and the aggregation
//! SQLite cannot do in SQL (exact percentiles, like PostgreSQL's `percentile_cont`).

use sqlx::sqlite::{SqliteArguments, SqliteRow};

use gateway_admin::usage::{UsageFilter, UsageTotals};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::u64_of;
use crate::sqlite::values::{SqliteColumns, opt_micros};

type Query<'q> = sqlx::query::Query<'q, sqlx::Sqlite, SqliteArguments>;

/// The filter as `WHERE` conditions over `m` with parameters `$1..$10` (see [`bind_filter`]).
macro_rules! usage_filter {
    () => {
        " WHERE ($1 IS NULL OR m.started_at >= $1) AND ($2 IS NULL OR m.started_at < $2) \
          AND ($3 IS NULL OR m.client_key_id = $3) AND ($4 IS NULL OR m.account_id = $4) \
          AND ($5 IS NULL OR m.provider = $5) \
          AND ($6 IS NULL OR m.requested_model = $6 OR m.upstream_model = $6) \
          AND ($7 IS NULL OR m.status = $7) AND ($8 IS NULL OR m.http_status = $8) \
          AND ($9 IS NULL OR m.transport = $9) AND ($10 IS NULL OR m.operation = $10) "
    };
}
pub(crate) use usage_filter;

/// The per-row values the totals are computed from.
macro_rules! usage_columns {
    () => {
        " m.status, m.http_status, m.input_tokens, m.cached_input_tokens, m.output_tokens, m.reasoning_tokens, \
          m.total_tokens, m.cost_nano_usd, m.total_ms, m.first_token_ms, m.started_at "
    };
}
pub(crate) use usage_columns;

/// The request list's select list (joins the key name and the account e-mail; the detail reads
/// the whole row: `rows::usage::REQUEST_DETAIL`).
macro_rules! request_summary_select {
    () => {
        "SELECT m.id, m.started_at, m.finished_at, m.status, m.send_state, m.http_status, m.error_code, \
         m.client_key_id, k.name AS client_key_name, m.account_id, a.email AS account_email, m.provider, \
         m.requested_model, m.upstream_model, m.operation, m.transport, m.stream, m.input_tokens, \
         m.cached_input_tokens, m.output_tokens, m.reasoning_tokens, m.total_tokens, m.cost_nano_usd, \
         m.connect_ms, m.headers_ms, m.first_event_ms, m.first_token_ms, m.total_ms, \
         json_array_length(m.attempts) AS attempt_count, m.routing_scope \
         FROM model_requests m LEFT JOIN client_api_keys k ON k.id = m.client_key_id \
         LEFT JOIN provider_accounts a ON a.id = m.account_id "
    };
}
pub(crate) use request_summary_select;

pub(crate) fn bind_filter<'q>(query: Query<'q>, f: &UsageFilter) -> Query<'q> {
    query
        .bind(opt_micros(f.from))
        .bind(opt_micros(f.to))
        .bind(f.client_key.map(|k| k.0))
        .bind(f.account.map(|a| a.0))
        .bind(f.provider.map(|p| p.as_str()))
        .bind(f.model.clone())
        .bind(f.status.map(|s| s.as_str()))
        .bind(f.http_status.map(i64::from))
        .bind(f.transport.map(|t| t.as_str()))
        .bind(f.operation.clone())
}

/// Totals being accumulated over rows.
#[derive(Default)]
pub(crate) struct Accumulator {
    totals: UsageTotals,
    total_ms: Vec<f64>,
    first_token_ms: Vec<f64>,
}

fn add(sum: &mut u64, row: &SqliteRow, name: &str) -> Result<(), StorageError> {
    if let Some(v) = row.col::<Option<i64>>(name)? {
        *sum = sum.saturating_add(u64_of(v, name)?);
    }
    Ok(())
}

impl Accumulator {
    pub(crate) fn add(&mut self, row: &SqliteRow) -> Result<(), StorageError> {
        let t = &mut self.totals;
        t.requests += 1;
        match row.col::<&str>("status")? {
            "completed" => t.completed += 1,
            "failed" => t.failed += 1,
            "incomplete" => t.incomplete += 1,
            "cancelled" => t.cancelled += 1,
            "running" => t.running += 1,
            _ => {}
        }
        if row.col::<Option<i64>>("http_status")?.is_some_and(|s| (400..=499).contains(&s)) {
            t.client_errors += 1;
        }
        add(&mut t.input_tokens, row, "input_tokens")?;
        add(&mut t.cached_input_tokens, row, "cached_input_tokens")?;
        add(&mut t.output_tokens, row, "output_tokens")?;
        add(&mut t.reasoning_tokens, row, "reasoning_tokens")?;
        add(&mut t.total_tokens, row, "total_tokens")?;
        t.cost_nano_usd = t.cost_nano_usd.saturating_add(row.col::<Option<i64>>("cost_nano_usd")?.unwrap_or(0));
        if let Some(ms) = row.col::<Option<i64>>("total_ms")? {
            self.total_ms.push(ms as f64);
        }
        if let Some(ms) = row.col::<Option<i64>>("first_token_ms")? {
            self.first_token_ms.push(ms as f64);
        }
        Ok(())
    }

    pub(crate) fn finish(mut self) -> UsageTotals {
        self.total_ms.sort_by(f64::total_cmp);
        self.first_token_ms.sort_by(f64::total_cmp);
        let mut t = self.totals;
        t.total_ms_p50 = percentile_cont(&self.total_ms, 0.5);
        t.total_ms_p95 = percentile_cont(&self.total_ms, 0.95);
        t.total_ms_p99 = percentile_cont(&self.total_ms, 0.99);
        t.first_token_ms_p50 = percentile_cont(&self.first_token_ms, 0.5);
        t.first_token_ms_p95 = percentile_cont(&self.first_token_ms, 0.95);
        t
    }
}

/// PostgreSQL's `percentile_cont` over sorted values: linear interpolation between the two
/// nearest ranks; `None` without values.
fn percentile_cont(sorted: &[f64], fraction: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = fraction * last as f64;
    let (lower, upper) = (position.floor() as usize, position.ceil() as usize);
    let (a, b) = (sorted[lower], sorted[upper.min(last)]);
    Some(a + (b - a) * (position - lower as f64))
}
