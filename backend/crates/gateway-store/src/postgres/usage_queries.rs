//! [`UsageQueries`]: request lists, details, totals, breakdowns and zone-aligned time buckets,
//! aggregated in SQL (exact percentiles with `percentile_cont`).

use async_trait::async_trait;
use sqlx::AssertSqlSafe;
use time::OffsetDateTime;

use gateway_admin::ports::UsageQueries;
use gateway_admin::usage::{
    BucketWidth, CalendarStarts, OutcomeCounts, RequestCursor, RequestDetail, RequestSummary, UsageBucket,
    UsageDimension, UsageFilter, UsageGroup, UsageTotals,
};
use gateway_core::domain::{AccountId, RequestId};
use gateway_core::ports::StorageError;

use crate::postgres::PgStore;
use crate::postgres::column_values::{ColumnRead, int8};
use crate::postgres::error_mapping::storage_error;
use crate::postgres::usage_rows::{bind_filter, request_summary_select, totals_from_row, usage_filter, usage_totals};
use crate::rows::usage::{
    LAST_USED_BY_ACCOUNT, REQUEST_DETAIL, detail_from_row, last_used_from_rows, summary_from_row,
};

/// (group key expression, label expression, joins) of a dimension.
fn dimension_sql(by: UsageDimension) -> (&'static str, &'static str, &'static str) {
    match by {
        UsageDimension::Model => ("m.requested_model", "NULL::text", ""),
        UsageDimension::Account => {
            ("m.account_id::text", "a.email", "LEFT JOIN provider_accounts a ON a.id = m.account_id ")
        }
        UsageDimension::Key => {
            ("m.client_key_id::text", "k.name", "LEFT JOIN client_api_keys k ON k.id = m.client_key_id ")
        }
        UsageDimension::Provider => ("m.provider", "NULL::text", ""),
        UsageDimension::Status => ("m.status", "NULL::text", ""),
        UsageDimension::Operation => ("m.operation", "NULL::text", ""),
        UsageDimension::Transport => ("m.transport", "NULL::text", ""),
        UsageDimension::ErrorCode => ("m.error_code", "NULL::text", ""),
    }
}

fn bucket_sql(width: BucketWidth) -> &'static str {
    match width {
        BucketWidth::Day => "(date_trunc('day', m.started_at AT TIME ZONE $11) AT TIME ZONE $11)",
        _ => {
            "(date_bin(($12::text)::interval, m.started_at AT TIME ZONE $11, TIMESTAMP '2000-01-01') AT TIME ZONE $11)"
        }
    }
}

/// Counts of the finished requests started in a window, and of the failed ones (an index range
/// on `(status, started_at)`; no row leaves the database).
pub(crate) const OUTCOME_COUNTS: &str = "SELECT count(*), count(*) FILTER (WHERE status = 'failed') \
     FROM model_requests WHERE status <> 'running' AND started_at >= $1 AND started_at < $2";

#[async_trait]
impl UsageQueries for PgStore {
    async fn list_requests(
        &self,
        filter: &UsageFilter,
        before: Option<RequestCursor>,
        limit: u32,
    ) -> Result<Vec<RequestSummary>, StorageError> {
        let query = sqlx::query(concat!(
            request_summary_select!(),
            usage_filter!(),
            "AND ($11::timestamptz IS NULL OR (m.started_at, m.id) < ($11, $12::uuid)) \
             ORDER BY m.started_at DESC, m.id DESC LIMIT $13"
        ));
        let rows = bind_filter(query, filter)
            .bind(before.map(|c| c.started_at))
            .bind(before.map(|c| c.id.0))
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.pool())
            .await
            .map_err(storage_error)?;
        rows.iter().map(summary_from_row).collect()
    }

    async fn request_detail(&self, id: RequestId) -> Result<RequestDetail, StorageError> {
        let row = sqlx::query(REQUEST_DETAIL)
            .bind(id.0)
            .fetch_optional(self.pool())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("request", id))?;
        detail_from_row(&row)
    }

    async fn outcome_counts(&self, from: OffsetDateTime, to: OffsetDateTime) -> Result<OutcomeCounts, StorageError> {
        let (finished, failed): (i64, i64) =
            sqlx::query_as(OUTCOME_COUNTS).bind(from).bind(to).fetch_one(self.pool()).await.map_err(storage_error)?;
        Ok(OutcomeCounts { finished: finished.max(0) as u64, failed: failed.max(0) as u64 })
    }

    async fn usage_totals(&self, filter: &UsageFilter) -> Result<UsageTotals, StorageError> {
        let query = sqlx::query(concat!("SELECT", usage_totals!(), "FROM model_requests m", usage_filter!()));
        let row = bind_filter(query, filter).fetch_one(self.pool()).await.map_err(storage_error)?;
        totals_from_row(&row)
    }

    async fn usage_groups(
        &self,
        filter: &UsageFilter,
        by: UsageDimension,
        limit: u32,
    ) -> Result<Vec<UsageGroup>, StorageError> {
        let (key, label, joins) = dimension_sql(by);
        let sql = format!(
            "SELECT {key} AS group_key, {label} AS group_label, {} FROM model_requests m {joins} {} \
             GROUP BY 1, 2 ORDER BY requests DESC, 1 LIMIT $11",
            usage_totals!(),
            usage_filter!()
        );
        let rows = bind_filter(sqlx::query(AssertSqlSafe(sql)), filter)
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.pool())
            .await
            .map_err(storage_error)?;
        rows.iter()
            .map(|row| {
                Ok(UsageGroup {
                    key: row.col("group_key")?,
                    label: row.col("group_label")?,
                    totals: totals_from_row(row)?,
                })
            })
            .collect()
    }

    async fn usage_trend(
        &self,
        filter: &UsageFilter,
        width: BucketWidth,
        tz: &str,
    ) -> Result<Vec<UsageBucket>, StorageError> {
        let sql = format!(
            "SELECT {} AS bucket, {} FROM model_requests m {} GROUP BY 1 ORDER BY 1",
            bucket_sql(width),
            usage_totals!(),
            usage_filter!()
        );
        let mut query = bind_filter(sqlx::query(AssertSqlSafe(sql)), filter).bind(tz);
        if width != BucketWidth::Day {
            query = query.bind(format!("{} seconds", width.seconds()));
        }
        let rows = query.fetch_all(self.pool()).await.map_err(storage_error)?;
        rows.iter().map(|row| Ok(UsageBucket { start: row.col("bucket")?, totals: totals_from_row(row)? })).collect()
    }

    async fn time_zone_exists(&self, tz: &str) -> Result<bool, StorageError> {
        let found: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1)")
            .bind(tz)
            .fetch_one(self.pool())
            .await
            .map_err(storage_error)?;
        Ok(found)
    }

    async fn calendar_starts(&self, now: OffsetDateTime, tz: &str) -> Result<CalendarStarts, StorageError> {
        let row = sqlx::query(
            "SELECT date_trunc('day', $1::timestamptz AT TIME ZONE $2) AT TIME ZONE $2 AS day, \
             date_trunc('month', $1::timestamptz AT TIME ZONE $2) AT TIME ZONE $2 AS month",
        )
        .bind(now)
        .bind(tz)
        .fetch_one(self.pool())
        .await
        .map_err(storage_error)?;
        Ok(CalendarStarts { day: row.col("day")?, month: row.col("month")? })
    }

    async fn last_used_by_account(&self) -> Result<Vec<(AccountId, OffsetDateTime)>, StorageError> {
        let rows = sqlx::query(LAST_USED_BY_ACCOUNT).fetch_all(self.pool()).await.map_err(storage_error)?;
        last_used_from_rows(&rows)
    }
}
