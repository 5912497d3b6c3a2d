//! [`OpsEventQueries`]: filtered, keyset-paged reading of `ops_events`.

use async_trait::async_trait;

use gateway_admin::ports::{OpsEventFilter, OpsEventQueries, StoredOpsEvent};
use gateway_core::ports::StorageError;

use crate::postgres::PgStore;
use crate::postgres::column_values::int8;
use crate::postgres::error_mapping::storage_error;
use crate::rows::ops_events::{event_from_row, levels_at_least, ops_select};

#[async_trait]
impl OpsEventQueries for PgStore {
    async fn list_ops_events(
        &self,
        filter: &OpsEventFilter,
        before_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<StoredOpsEvent>, StorageError> {
        let rows = sqlx::query(concat!(
            ops_select!(),
            "WHERE ($1::timestamptz IS NULL OR occurred_at >= $1) AND ($2::timestamptz IS NULL OR occurred_at < $2) \
             AND ($3::text[] IS NULL OR level = ANY($3)) \
             AND ($4::text IS NULL OR starts_with(kind, $4)) AND ($5::bigint IS NULL OR account_id = $5) \
             AND ($6::uuid IS NULL OR request_id = $6) AND ($7::bigint IS NULL OR id < $7) \
             ORDER BY id DESC LIMIT $8"
        ))
        .bind(filter.from)
        .bind(filter.to)
        .bind(levels_at_least(filter.level))
        .bind(filter.kind.as_deref())
        .bind(filter.account.map(|a| a.0))
        .bind(filter.request.map(|r| r.0))
        .bind(before_id)
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.pool())
        .await
        .map_err(storage_error)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn ops_events_after(&self, after_id: i64, limit: u32) -> Result<Vec<StoredOpsEvent>, StorageError> {
        let rows = sqlx::query(concat!(ops_select!(), "WHERE id > $1 ORDER BY id LIMIT $2"))
            .bind(after_id)
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.pool())
            .await
            .map_err(storage_error)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn latest_ops_event_id(&self) -> Result<i64, StorageError> {
        let id: Option<i64> =
            sqlx::query_scalar("SELECT max(id) FROM ops_events").fetch_one(self.pool()).await.map_err(storage_error)?;
        Ok(id.unwrap_or(0))
    }
}
