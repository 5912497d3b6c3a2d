//! [`RequestLog`]: the `model_requests` projection.
//!
//! Same monotone rules as the PostgreSQL adapter: an update of a `running` row applies everything
//! but never lowers the send-state watermark (ranked `not_sent < ambiguous < sent`); an update of a
//! terminal row only raises the watermark. A batch is one transaction on the single writer
//! (prepared statements, one row each); the in-batch folding is the PostgreSQL adapter's
//! (`postgres::requests::fold`).

use std::collections::HashSet;

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_core::domain::{BootId, ModelRequestRecord, RequestId, RequestStart, RequestUpdate};
use gateway_core::ports::{RequestLog, StorageError};

use crate::postgres::column_values::int8;
use crate::postgres::requests::fold;
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::request_rows::{UpdateBinds, bind_start, bind_update, request_from_row, request_select};
use crate::sqlite::values::micros;

/// `CASE` rank of a send state.
macro_rules! rank {
    ($e:expr) => {
        concat!("(CASE ", $e, " WHEN 'not_sent' THEN 0 WHEN 'ambiguous' THEN 1 WHEN 'sent' THEN 2 END)")
    };
}

/// One update ($1..$26, see `bind_update`). Rows still `running` take the update's values
/// (`NULL` keeps the stored one); terminal rows only see their watermark rise.
const APPLY_UPDATE: &str = concat!(
    "UPDATE model_requests SET \
     send_state = CASE WHEN ",
    rank!("$3"),
    " > ",
    rank!("send_state"),
    " THEN $3 ELSE send_state END, \
     status = CASE WHEN status = 'running' THEN $2 ELSE status END, \
     provider = CASE WHEN status = 'running' THEN COALESCE($4, provider) ELSE provider END, \
     account_id = CASE WHEN status = 'running' \
        THEN COALESCE((SELECT a.id FROM provider_accounts a WHERE a.id = $5), account_id) ELSE account_id END, \
     upstream_model = CASE WHEN status = 'running' THEN COALESCE($6, upstream_model) ELSE upstream_model END, \
     http_status = CASE WHEN status = 'running' THEN COALESCE($7, http_status) ELSE http_status END, \
     error_code = CASE WHEN status = 'running' THEN COALESCE($8, error_code) ELSE error_code END, \
     attempts = CASE WHEN status = 'running' THEN COALESCE($9, attempts) ELSE attempts END, \
     input_tokens = CASE WHEN status = 'running' THEN COALESCE($10, input_tokens) ELSE input_tokens END, \
     cached_input_tokens = CASE WHEN status = 'running' THEN COALESCE($11, cached_input_tokens) ELSE cached_input_tokens END, \
     output_tokens = CASE WHEN status = 'running' THEN COALESCE($12, output_tokens) ELSE output_tokens END, \
     reasoning_tokens = CASE WHEN status = 'running' THEN COALESCE($13, reasoning_tokens) ELSE reasoning_tokens END, \
     total_tokens = CASE WHEN status = 'running' THEN COALESCE($14, total_tokens) ELSE total_tokens END, \
     cost_nano_usd = CASE WHEN status = 'running' THEN COALESCE($15, cost_nano_usd) ELSE cost_nano_usd END, \
     service_tier = CASE WHEN status = 'running' THEN COALESCE($16, service_tier) ELSE service_tier END, \
     client_response_id = CASE WHEN status = 'running' THEN COALESCE($17, client_response_id) ELSE client_response_id END, \
     upstream_response_id = CASE WHEN status = 'running' THEN COALESCE($18, upstream_response_id) ELSE upstream_response_id END, \
     downstream_committed_at = CASE WHEN status = 'running' THEN COALESCE(downstream_committed_at, $19) ELSE downstream_committed_at END, \
     finished_at = CASE WHEN status <> 'running' THEN finished_at WHEN $2 = 'running' THEN NULL ELSE COALESCE($20, $26) END, \
     connect_ms = CASE WHEN status = 'running' THEN COALESCE($21, connect_ms) ELSE connect_ms END, \
     headers_ms = CASE WHEN status = 'running' THEN COALESCE($22, headers_ms) ELSE headers_ms END, \
     first_event_ms = CASE WHEN status = 'running' THEN COALESCE($23, first_event_ms) ELSE first_event_ms END, \
     first_token_ms = CASE WHEN status = 'running' THEN COALESCE($24, first_token_ms) ELSE first_token_ms END, \
     total_ms = CASE WHEN status = 'running' THEN COALESCE($25, total_ms) ELSE total_ms END \
     WHERE id = $1 AND (status = 'running' OR ",
    rank!("$3"),
    " > ",
    rank!("send_state"),
    ")"
);

/// One start, with the update folded into it ($1..$26) or a fresh `running` one, and the start's
/// own columns ($27..$37). A client key or account that no longer exists is stored as `NULL`.
const INSERT_FULL: &str = "INSERT INTO model_requests (id, status, send_state, provider, account_id, \
     upstream_model, http_status, error_code, attempts, input_tokens, cached_input_tokens, output_tokens, \
     reasoning_tokens, total_tokens, cost_nano_usd, service_tier, client_response_id, upstream_response_id, \
     downstream_committed_at, finished_at, connect_ms, headers_ms, first_event_ms, first_token_ms, total_ms, \
     client_key_id, requested_model, operation, transport, stream, routing_scope, routing_groups, started_at, \
     deadline_at, replica_name, boot_id) \
     VALUES ($1, $2, $3, $4, (SELECT a.id FROM provider_accounts a WHERE a.id = $5), $6, $7, $8, \
     COALESCE($9, '[]'), $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, \
     CASE WHEN $2 = 'running' THEN NULL ELSE COALESCE($20, $26) END, $21, $22, $23, $24, $25, \
     (SELECT k.id FROM client_api_keys k WHERE k.id = $27), $28, $29, $30, $31, $32, $33, $34, $35, $36, $37) \
     ON CONFLICT (id) DO NOTHING RETURNING id";

#[async_trait]
impl RequestLog for SqliteStore {
    async fn record_starts(&self, starts: &[RequestStart]) -> Result<u64, StorageError> {
        if starts.is_empty() {
            return Ok(0);
        }
        let mut tx = self.writer().begin().await.map_err(storage_error)?;
        let mut inserted = 0;
        for start in starts {
            let fresh = UpdateBinds::running(start.id);
            let query = bind_start(bind_update(sqlx::query(INSERT_FULL), &fresh), start);
            inserted += query.execute(&mut *tx).await.map_err(storage_error)?.rows_affected();
        }
        tx.commit().await.map_err(storage_error)?;
        Ok(inserted)
    }

    async fn record_updates(&self, updates: &[RequestUpdate]) -> Result<u64, StorageError> {
        if updates.is_empty() {
            return Ok(0);
        }
        let folded = fold(updates);
        let binds = folded.iter().map(UpdateBinds::of).collect::<Result<Vec<_>, _>>()?;
        let mut tx = self.writer().begin().await.map_err(storage_error)?;
        let mut updated = 0;
        for update in &binds {
            let done = bind_update(sqlx::query(APPLY_UPDATE), update).execute(&mut *tx).await.map_err(storage_error)?;
            updated += done.rows_affected();
        }
        tx.commit().await.map_err(storage_error)?;
        Ok(updated)
    }

    async fn record_batch(
        &self,
        starts: &[RequestStart],
        updates: &[RequestUpdate],
    ) -> Result<(u64, u64), StorageError> {
        let folded = fold(updates);
        let mut tx = self.writer().begin().await.map_err(storage_error)?;
        let mut inserted_ids: HashSet<RequestId> = HashSet::new();
        for start in starts {
            let binds = match folded.iter().find(|u| u.id == start.id) {
                Some(update) => UpdateBinds::of(update)?,
                None => UpdateBinds::running(start.id),
            };
            let row = bind_start(bind_update(sqlx::query(INSERT_FULL), &binds), start)
                .fetch_optional(&mut *tx)
                .await
                .map_err(storage_error)?;
            if row.is_some() {
                inserted_ids.insert(start.id);
            }
        }
        // Updates whose row was inserted just now are already in it; the rest update rows
        // written by earlier batches (or starts that were already stored).
        let mut updated = 0;
        for update in folded.iter().filter(|u| !inserted_ids.contains(&u.id)) {
            let binds = UpdateBinds::of(update)?;
            let done = bind_update(sqlx::query(APPLY_UPDATE), &binds).execute(&mut *tx).await.map_err(storage_error)?;
            updated += done.rows_affected();
        }
        tx.commit().await.map_err(storage_error)?;
        Ok((inserted_ids.len() as u64, updated))
    }

    async fn recover_stale(&self, now: OffsetDateTime, limit: u32) -> Result<Vec<RequestId>, StorageError> {
        let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
            "UPDATE model_requests SET status = 'incomplete', error_code = 'stale_recovered', finished_at = $1 \
             WHERE id IN (SELECT id FROM model_requests WHERE status = 'running' AND deadline_at < $1 \
                          ORDER BY deadline_at LIMIT $2) \
             RETURNING id",
        )
        .bind(micros(now))
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.writer())
        .await
        .map_err(storage_error)?;
        Ok(ids.into_iter().map(RequestId).collect())
    }

    async fn running_boots(&self, limit: u32) -> Result<Vec<BootId>, StorageError> {
        let boots: Vec<uuid::Uuid> = sqlx::query_scalar(
            "SELECT DISTINCT boot_id FROM model_requests WHERE status = 'running' AND boot_id IS NOT NULL LIMIT $1",
        )
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.reader())
        .await
        .map_err(storage_error)?;
        Ok(boots.into_iter().map(BootId).collect())
    }

    async fn recover_boot(
        &self,
        boot: BootId,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
            "UPDATE model_requests SET status = 'incomplete', error_code = 'replica_lost', finished_at = $2 \
             WHERE id IN (SELECT id FROM model_requests WHERE status = 'running' AND boot_id = $1 LIMIT $3) \
             RETURNING id",
        )
        .bind(boot.0)
        .bind(micros(now))
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.writer())
        .await
        .map_err(storage_error)?;
        Ok(ids.into_iter().map(RequestId).collect())
    }

    async fn delete_requests_before(&self, cutoff: OffsetDateTime, limit: u32) -> Result<u64, StorageError> {
        let done = sqlx::query(
            "DELETE FROM model_requests WHERE id IN (SELECT id FROM model_requests \
             WHERE started_at < $1 AND status <> 'running' ORDER BY started_at LIMIT $2)",
        )
        .bind(micros(cutoff))
        .bind(int8(u64::from(limit), "limit")?)
        .execute(self.writer())
        .await
        .map_err(storage_error)?;
        Ok(done.rows_affected())
    }

    async fn get_request(&self, id: RequestId) -> Result<ModelRequestRecord, StorageError> {
        let row = sqlx::query(concat!(request_select!(), "WHERE m.id = $1"))
            .bind(id.0)
            .fetch_optional(self.reader())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("request", id))?;
        request_from_row(&row)
    }
}
