//! [`OpsEventQueries`]: filtered, keyset-paged reading of `ops_events`.

use async_trait::async_trait;

use gateway_admin::ports::{OpsEventFilter, OpsEventQueries, StoredOpsEvent};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::int8;
use crate::rows::ops_events::{event_from_row, levels_at_least, ops_select};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::opt_micros;

#[async_trait]
impl OpsEventQueries for SqliteStore {
    async fn list_ops_events(
        &self,
        filter: &OpsEventFilter,
        before_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<StoredOpsEvent>, StorageError> {
        let rows = sqlx::query(concat!(
            ops_select!(),
            "WHERE ($1 IS NULL OR occurred_at >= $1) AND ($2 IS NULL OR occurred_at < $2) \
             AND ($3 IS NULL OR level IN (SELECT value FROM json_each($3))) \
             AND ($4 IS NULL OR substr(kind, 1, length($4)) = $4) AND ($5 IS NULL OR account_id = $5) \
             AND ($6 IS NULL OR request_id = $6) AND ($7 IS NULL OR id < $7) \
             ORDER BY id DESC LIMIT $8"
        ))
        .bind(opt_micros(filter.from))
        .bind(opt_micros(filter.to))
        .bind(levels_at_least(filter.level).map(|levels| serde_json::Value::from(levels).to_string()))
        .bind(filter.kind.as_deref())
        .bind(filter.account.map(|a| a.0))
        .bind(filter.request.map(|r| r.0))
        .bind(before_id)
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.reader())
        .await
        .map_err(storage_error)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn ops_events_after(&self, after_id: i64, limit: u32) -> Result<Vec<StoredOpsEvent>, StorageError> {
        let rows = sqlx::query(concat!(ops_select!(), "WHERE id > $1 ORDER BY id LIMIT $2"))
            .bind(after_id)
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.reader())
            .await
            .map_err(storage_error)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn latest_ops_event_id(&self) -> Result<i64, StorageError> {
        let id: Option<i64> = sqlx::query_scalar("SELECT max(id) FROM ops_events")
            .fetch_one(self.reader())
            .await
            .map_err(storage_error)?;
        Ok(id.unwrap_or(0))
    }
}
