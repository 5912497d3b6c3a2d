//! [`RequestLog`]: the `model_requests` projection.
//!
//! Same monotone rules as the PostgreSQL adapter: an update of a `running` row applies everything
//! but never lowers the send-state watermark (ranked `not_sent < ambiguous < sent`); an update of a
//! terminal row only raises the watermark. A batch is one transaction on the single writer, in
//! multi-row statements (`request_statements.rs`); the in-batch folding and the update's columns
//! are shared with PostgreSQL (`rows::request_update`).

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use sqlx::Row;
use time::OffsetDateTime;

use gateway_core::domain::{BootId, ModelRequestRecord, ReplicaName, RequestId, RequestStart, RequestUpdate};
use gateway_core::ports::{RequestLog, StorageError};

use crate::postgres::column_values::int8;
use crate::rows::request_update::{UpdateColumns, fold};
use crate::rows::requests::{request_from_row, request_select};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::request_rows::{bind_start, bind_update};
use crate::sqlite::request_statements as statements;
use crate::sqlite::values::{micros, now_micros};

#[async_trait]
impl RequestLog for SqliteStore {
    async fn record_starts(&self, starts: &[RequestStart]) -> Result<u64, StorageError> {
        if starts.is_empty() {
            return Ok(0);
        }
        let rows: Vec<_> = starts.iter().map(|start| (UpdateColumns::running(start.id), start)).collect();
        let mut tx = self.writer().begin().await.map_err(storage_error)?;
        let inserted = insert_rows(&mut tx, &rows).await?;
        tx.commit().await.map_err(storage_error)?;
        Ok(inserted.len() as u64)
    }

    async fn record_updates(&self, updates: &[RequestUpdate]) -> Result<u64, StorageError> {
        if updates.is_empty() {
            return Ok(0);
        }
        let folded = fold(updates);
        let binds = folded.iter().map(UpdateColumns::of).collect::<Result<Vec<_>, _>>()?;
        let mut tx = self.writer().begin().await.map_err(storage_error)?;
        let updated = update_rows(&mut tx, &binds).await?;
        tx.commit().await.map_err(storage_error)?;
        Ok(updated)
    }

    async fn record_batch(
        &self,
        starts: &[RequestStart],
        updates: &[RequestUpdate],
    ) -> Result<(u64, u64), StorageError> {
        let folded = fold(updates);
        let by_id: HashMap<RequestId, &RequestUpdate> = folded.iter().map(|u| (u.id, u)).collect();
        let rows = starts
            .iter()
            .map(|start| {
                let binds = match by_id.get(&start.id) {
                    Some(update) => UpdateColumns::of(update)?,
                    None => UpdateColumns::running(start.id),
                };
                Ok((binds, start))
            })
            .collect::<Result<Vec<_>, StorageError>>()?;
        let mut tx = self.writer().begin().await.map_err(storage_error)?;
        let inserted = insert_rows(&mut tx, &rows).await?;
        // Updates whose row was inserted just now are already in it; the rest update rows
        // written by earlier batches (or starts that were already stored).
        let rest = folded
            .iter()
            .filter(|u| !inserted.contains(&u.id))
            .map(UpdateColumns::of)
            .collect::<Result<Vec<_>, _>>()?;
        let updated = update_rows(&mut tx, &rest).await?;
        tx.commit().await.map_err(storage_error)?;
        Ok((inserted.len() as u64, updated))
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

    async fn running_boots_of(&self, replica: &ReplicaName, limit: u32) -> Result<Vec<BootId>, StorageError> {
        let boots: Vec<uuid::Uuid> = sqlx::query_scalar(
            "SELECT DISTINCT boot_id FROM model_requests \
             WHERE status = 'running' AND replica_name = $1 AND boot_id IS NOT NULL LIMIT $2",
        )
        .bind(replica.as_str())
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.reader())
        .await
        .map_err(storage_error)?;
        Ok(boots.into_iter().map(BootId).collect())
    }

    async fn recover_restarted_boot(
        &self,
        replica: &ReplicaName,
        boot: BootId,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
            "UPDATE model_requests SET status = 'incomplete', error_code = 'replica_restarted', finished_at = $3 \
             WHERE id IN (SELECT id FROM model_requests \
                          WHERE status = 'running' AND boot_id = $1 AND replica_name = $2 LIMIT $4) \
             RETURNING id",
        )
        .bind(boot.0)
        .bind(replica.as_str())
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

type Transaction<'c> = sqlx::Transaction<'c, sqlx::Sqlite>;

/// Inserts the rows (a start with the update folded into it) in multi-row statements; returns
/// the ids that were new.
async fn insert_rows(
    tx: &mut Transaction<'_>,
    rows: &[(UpdateColumns<'_>, &RequestStart)],
) -> Result<HashSet<RequestId>, StorageError> {
    let now = now_micros();
    let mut inserted = HashSet::with_capacity(rows.len());
    let mut rest = rows;
    for size in statements::chunks(rows.len()) {
        let (chunk, tail) = rest.split_at(size);
        rest = tail;
        let query = chunk.iter().fold(sqlx::query(statements::insert(size)), |q, (columns, start)| {
            bind_start(bind_update(q, columns, now), start)
        });
        let ids: Vec<uuid::Uuid> =
            query.fetch_all(&mut **tx).await.map_err(storage_error)?.iter().map(|row| row.get(0)).collect();
        inserted.extend(ids.into_iter().map(RequestId));
    }
    Ok(inserted)
}

/// Applies the updates (one per request, folded) in multi-row statements; returns the rows changed.
async fn update_rows(tx: &mut Transaction<'_>, binds: &[UpdateColumns<'_>]) -> Result<u64, StorageError> {
    let now = now_micros();
    let mut updated = 0;
    let mut rest = binds;
    for size in statements::chunks(binds.len()) {
        let (chunk, tail) = rest.split_at(size);
        rest = tail;
        let query = chunk.iter().fold(sqlx::query(statements::update(size)), |q, columns| bind_update(q, columns, now));
        updated += query.execute(&mut **tx).await.map_err(storage_error)?.rows_affected();
    }
    Ok(updated)
}
