//! [`OpsEventLog`]: redacted runtime events, inserted in batches (one transaction) and deleted in
//! bounded batches.

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_core::domain::OpsEvent;
use gateway_core::ports::{OpsEventLog, StorageError};

use crate::postgres::column_values::int8;
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::micros;

/// Dangling references (an account deleted, a request start dropped by a full queue) are kept in
/// `details` rather than failing the whole batch on a foreign key.
const INSERT_EVENT: &str = "INSERT INTO ops_events (occurred_at, level, kind, provider, account_id, request_id, \
     message, details) \
     SELECT $1, $2, $3, $4, a.id, m.id, $7, \
     json_patch(json_patch(COALESCE($8, '{}'), \
         CASE WHEN $5 IS NOT NULL AND a.id IS NULL THEN json_object('unlinked_account_id', $5) ELSE '{}' END), \
         CASE WHEN $6 IS NOT NULL AND m.id IS NULL THEN json_object('unlinked_request_id', $9) ELSE '{}' END) \
     FROM (SELECT 1) \
     LEFT JOIN provider_accounts a ON a.id = $5 \
     LEFT JOIN model_requests m ON m.id = $6";

#[async_trait]
impl OpsEventLog for SqliteStore {
    async fn record_ops_events(&self, events: &[OpsEvent]) -> Result<u64, StorageError> {
        if events.is_empty() {
            return Ok(0);
        }
        let mut tx = self.writer().begin().await.map_err(storage_error)?;
        let mut inserted = 0;
        for e in events {
            let done = sqlx::query(INSERT_EVENT)
                .bind(micros(e.occurred_at))
                .bind(e.level.as_str())
                .bind(e.kind.clone())
                .bind(e.provider.map(|p| p.as_str()))
                .bind(e.account_id.map(|a| a.0))
                .bind(e.request_id.map(|r| r.0))
                .bind(e.message.clone())
                .bind(e.details.to_string())
                .bind(e.request_id.map(|r| r.0.to_string()))
                .execute(&mut *tx)
                .await
                .map_err(storage_error)?;
            inserted += done.rows_affected();
        }
        tx.commit().await.map_err(storage_error)?;
        Ok(inserted)
    }

    async fn delete_ops_events_before(&self, cutoff: OffsetDateTime, limit: u32) -> Result<u64, StorageError> {
        let done = sqlx::query(
            "DELETE FROM ops_events WHERE id IN (SELECT id FROM ops_events WHERE occurred_at < $1 \
             ORDER BY occurred_at LIMIT $2)",
        )
        .bind(micros(cutoff))
        .bind(int8(u64::from(limit), "limit")?)
        .execute(self.writer())
        .await
        .map_err(storage_error)?;
        Ok(done.rows_affected())
    }
}
