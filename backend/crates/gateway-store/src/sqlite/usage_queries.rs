//! [`UsageQueries`]: request lists and details in SQL; totals, breakdowns and time buckets
//! aggregated in Rust over the filtered rows (SQLite has no `percentile_cont`; embedded mode holds
//! one replica's retention window).
//!
//! Time zones: SQLite knows none, so embedded mode aligns buckets and calendar starts in UTC only
//! (`UTC`, `Etc/UTC`); `time_zone_exists` answers `false` for every other zone, which the admin
//! API refuses with a clear error. Other zones in embedded mode: not built yet.

use std::collections::HashMap;

use async_trait::async_trait;
use sqlx::AssertSqlSafe;
use sqlx::sqlite::SqliteRow;
use time::{Date, OffsetDateTime, Time};

use gateway_admin::ports::UsageQueries;
use gateway_admin::usage::{
    BucketWidth, CalendarStarts, OutcomeCounts, RequestCursor, RequestDetail, RequestSummary, UsageBucket,
    UsageDimension, UsageFilter, UsageGroup, UsageTotals,
};
use gateway_core::domain::{AccountId, RequestId};
use gateway_core::ports::{ConstraintKind, StorageError};

use crate::postgres::column_values::int8;
use crate::postgres::usage_queries::OUTCOME_COUNTS;
use crate::rows::usage::{
    LAST_USED_BY_ACCOUNT, REQUEST_DETAIL, detail_from_row, last_used_from_rows, summary_from_row,
};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::usage_rows::{Accumulator, bind_filter, request_summary_select, usage_columns, usage_filter};
use crate::sqlite::values::{SqliteColumns, from_micros, micros, opt_micros};

const UTC_NAMES: &[&str] = &["UTC", "Etc/UTC"];

fn utc_only(tz: &str) -> Result<(), StorageError> {
    if UTC_NAMES.contains(&tz) {
        Ok(())
    } else {
        Err(StorageError::Constraint {
            kind: ConstraintKind::InvalidValue,
            constraint: format!("time zone {tz:?} (embedded mode aligns to UTC only)"),
        })
    }
}

/// (group key expression, label expression, joins) of a dimension.
fn dimension_sql(by: UsageDimension) -> (&'static str, &'static str, &'static str) {
    match by {
        UsageDimension::Model => ("m.requested_model", "NULL", ""),
        UsageDimension::Account => {
            ("CAST(m.account_id AS TEXT)", "a.email", "LEFT JOIN provider_accounts a ON a.id = m.account_id ")
        }
        UsageDimension::Key => {
            ("CAST(m.client_key_id AS TEXT)", "k.name", "LEFT JOIN client_api_keys k ON k.id = m.client_key_id ")
        }
        UsageDimension::Provider => ("m.provider", "NULL", ""),
        UsageDimension::Status => ("m.status", "NULL", ""),
        UsageDimension::Operation => ("m.operation", "NULL", ""),
        UsageDimension::Transport => ("m.transport", "NULL", ""),
        UsageDimension::ErrorCode => ("m.error_code", "NULL", ""),
    }
}

/// The start of the UTC bucket of `width` that holds `at` (PostgreSQL: `date_bin` from
/// 2000-01-01, or `date_trunc('day', …)`; both are whole multiples of the width since the epoch).
fn bucket_start(at: OffsetDateTime, width: BucketWidth) -> OffsetDateTime {
    let seconds = at.unix_timestamp();
    let start = seconds - seconds.rem_euclid(width.seconds());
    OffsetDateTime::from_unix_timestamp(start).unwrap_or(at)
}

async fn filtered_rows(
    store: &SqliteStore,
    filter: &UsageFilter,
    extra_columns: &str,
    joins: &str,
) -> Result<Vec<SqliteRow>, StorageError> {
    let sql = format!("SELECT {}{extra_columns} FROM model_requests m {joins}{}", usage_columns!(), usage_filter!());
    bind_filter(sqlx::query(AssertSqlSafe(sql)), filter).fetch_all(store.reader()).await.map_err(storage_error)
}

#[async_trait]
impl UsageQueries for SqliteStore {
    async fn list_requests(
        &self,
        filter: &UsageFilter,
        before: Option<RequestCursor>,
        limit: u32,
    ) -> Result<Vec<RequestSummary>, StorageError> {
        let query = sqlx::query(concat!(
            request_summary_select!(),
            usage_filter!(),
            "AND ($11 IS NULL OR m.started_at < $11 OR (m.started_at = $11 AND m.id < $12)) \
             ORDER BY m.started_at DESC, m.id DESC LIMIT $13"
        ));
        let rows = bind_filter(query, filter)
            .bind(opt_micros(before.map(|c| c.started_at)))
            .bind(before.map(|c| c.id.0))
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.reader())
            .await
            .map_err(storage_error)?;
        rows.iter().map(summary_from_row).collect()
    }

    async fn request_detail(&self, id: RequestId) -> Result<RequestDetail, StorageError> {
        let row = sqlx::query(REQUEST_DETAIL)
            .bind(id.0)
            .fetch_optional(self.reader())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("request", id))?;
        detail_from_row(&row)
    }

    async fn outcome_counts(&self, from: OffsetDateTime, to: OffsetDateTime) -> Result<OutcomeCounts, StorageError> {
        let (finished, failed): (i64, i64) = sqlx::query_as(OUTCOME_COUNTS)
            .bind(micros(from))
            .bind(micros(to))
            .fetch_one(self.reader())
            .await
            .map_err(storage_error)?;
        Ok(OutcomeCounts { finished: finished.max(0) as u64, failed: failed.max(0) as u64 })
    }

    async fn usage_totals(&self, filter: &UsageFilter) -> Result<UsageTotals, StorageError> {
        let mut totals = Accumulator::default();
        for row in &filtered_rows(self, filter, "", "").await? {
            totals.add(row)?;
        }
        Ok(totals.finish())
    }

    async fn usage_groups(
        &self,
        filter: &UsageFilter,
        by: UsageDimension,
        limit: u32,
    ) -> Result<Vec<UsageGroup>, StorageError> {
        let (key, label, joins) = dimension_sql(by);
        let extra = format!(", {key} AS group_key, {label} AS group_label");
        let mut groups: HashMap<(Option<String>, Option<String>), Accumulator> = HashMap::new();
        for row in &filtered_rows(self, filter, &extra, joins).await? {
            let id = (row.col::<Option<String>>("group_key")?, row.col::<Option<String>>("group_label")?);
            groups.entry(id).or_default().add(row)?;
        }
        let mut out: Vec<UsageGroup> = groups
            .into_iter()
            .map(|((key, label), totals)| UsageGroup { key, label, totals: totals.finish() })
            .collect();
        // PostgreSQL: ORDER BY requests DESC, key (ascending, NULL last).
        out.sort_by(|a, b| {
            b.totals.requests.cmp(&a.totals.requests).then_with(|| match (&a.key, &b.key) {
                (Some(x), Some(y)) => x.cmp(y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
        });
        out.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(out)
    }

    async fn usage_trend(
        &self,
        filter: &UsageFilter,
        width: BucketWidth,
        tz: &str,
    ) -> Result<Vec<UsageBucket>, StorageError> {
        utc_only(tz)?;
        let mut buckets: std::collections::BTreeMap<i64, Accumulator> = std::collections::BTreeMap::new();
        for row in &filtered_rows(self, filter, "", "").await? {
            let start = bucket_start(row.ts("started_at")?, width);
            buckets.entry(micros(start)).or_default().add(row)?;
        }
        buckets
            .into_iter()
            .map(|(start, totals)| Ok(UsageBucket { start: from_micros(start, "bucket")?, totals: totals.finish() }))
            .collect()
    }

    async fn time_zone_exists(&self, tz: &str) -> Result<bool, StorageError> {
        Ok(UTC_NAMES.contains(&tz))
    }

    async fn calendar_starts(&self, now: OffsetDateTime, tz: &str) -> Result<CalendarStarts, StorageError> {
        utc_only(tz)?;
        let now = now.to_offset(time::UtcOffset::UTC);
        let month =
            Date::from_calendar_date(now.year(), now.month(), 1).map_err(|e| StorageError::Internal(e.to_string()))?;
        Ok(CalendarStarts {
            day: now.replace_time(Time::MIDNIGHT),
            month: month.with_time(Time::MIDNIGHT).assume_utc(),
        })
    }

    async fn last_used_by_account(&self) -> Result<Vec<(AccountId, OffsetDateTime)>, StorageError> {
        let rows = sqlx::query(LAST_USED_BY_ACCOUNT).fetch_all(self.reader()).await.map_err(storage_error)?;
        last_used_from_rows(&rows)
    }
}
