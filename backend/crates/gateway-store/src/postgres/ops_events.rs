//! [`OpsEventLog`]: redacted runtime events, inserted in batches and deleted in bounded batches.

use async_trait::async_trait;
use serde::Serialize;
use time::OffsetDateTime;

use gateway_core::domain::OpsEvent;
use gateway_core::ports::{OpsEventLog, StorageError};

use crate::postgres::PgStore;
use crate::postgres::column_values::int8;
use crate::postgres::error_mapping::storage_error;

#[derive(Serialize)]
struct EventRecord<'a> {
    #[serde(with = "time::serde::rfc3339")]
    occurred_at: OffsetDateTime,
    level: &'static str,
    kind: &'a str,
    provider: Option<&'static str>,
    account_id: Option<i64>,
    request_id: Option<uuid::Uuid>,
    message: &'a str,
    details: &'a serde_json::Value,
}

/// Dangling references (an account deleted, a request start dropped by a full queue) are kept in
/// `details` rather than failing the whole batch on a foreign key.
const INSERT_EVENTS: &str = "INSERT INTO ops_events (occurred_at, level, kind, provider, account_id, request_id, \
     message, details) \
     SELECT r.occurred_at, r.level, r.kind, r.provider, a.id, m.id, r.message, \
     COALESCE(r.details, '{}'::jsonb) \
       || CASE WHEN r.account_id IS NOT NULL AND a.id IS NULL \
               THEN jsonb_build_object('unlinked_account_id', r.account_id) ELSE '{}'::jsonb END \
       || CASE WHEN r.request_id IS NOT NULL AND m.id IS NULL \
               THEN jsonb_build_object('unlinked_request_id', r.request_id) ELSE '{}'::jsonb END \
     FROM jsonb_to_recordset($1) AS r(occurred_at timestamptz, level text, kind text, provider text, \
     account_id bigint, request_id uuid, message text, details jsonb) \
     LEFT JOIN provider_accounts a ON a.id = r.account_id \
     LEFT JOIN model_requests m ON m.id = r.request_id";

#[async_trait]
impl OpsEventLog for PgStore {
    async fn record_ops_events(&self, events: &[OpsEvent]) -> Result<u64, StorageError> {
        if events.is_empty() {
            return Ok(0);
        }
        let records: Vec<EventRecord<'_>> = events
            .iter()
            .map(|e| EventRecord {
                occurred_at: e.occurred_at,
                level: e.level.as_str(),
                kind: &e.kind,
                provider: e.provider.map(|p| p.as_str()),
                account_id: e.account_id.map(|a| a.0),
                request_id: e.request_id.map(|r| r.0),
                message: &e.message,
                details: &e.details,
            })
            .collect();
        let batch = serde_json::to_value(&records).map_err(|e| StorageError::Internal(e.to_string()))?;
        let done = sqlx::query(INSERT_EVENTS).bind(batch).execute(self.pool()).await.map_err(storage_error)?;
        Ok(done.rows_affected())
    }

    async fn delete_ops_events_before(&self, cutoff: OffsetDateTime, limit: u32) -> Result<u64, StorageError> {
        let done = sqlx::query(
            "DELETE FROM ops_events WHERE id IN (SELECT id FROM ops_events WHERE occurred_at < $1 \
             ORDER BY occurred_at LIMIT $2 FOR UPDATE SKIP LOCKED)",
        )
        .bind(cutoff)
        .bind(int8(u64::from(limit), "limit")?)
        .execute(self.pool())
        .await
        .map_err(storage_error)?;
        Ok(done.rows_affected())
    }
}
