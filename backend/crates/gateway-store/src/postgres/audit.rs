//! The audit trail: appending the hash-chained row inside a unit of work, listing, verifying.
//!
//! Appends are serialised by the `runtime_settings` row lock that the same transaction took when
//! it bumped `config_revision`, so reading the previous hash and inserting cannot interleave.

use std::ops::ControlFlow;

use async_trait::async_trait;
use sqlx::PgConnection;

use gateway_admin::audit::{AuditEntry, AuditEvent};
use gateway_admin::ports::AuditTrail;
use gateway_core::domain::ConfigRevision;
use gateway_core::ports::StorageError;

use crate::postgres::PgStore;
use crate::postgres::column_values::int8;
use crate::postgres::error_mapping::storage_error;
use crate::rows::audit::{audit_select, event_from_row};
use crate::sql_shared::audit_chain::{ChainCheck, VERIFY_PAGE, chain_append};

/// Inserts the audit row for a unit of work whose revision bump produced `config_revision`.
pub(crate) async fn append(
    conn: &mut PgConnection,
    entry: &AuditEntry,
    config_revision: ConfigRevision,
) -> Result<i64, StorageError> {
    let prev: Option<Vec<u8>> = sqlx::query_scalar("SELECT row_hash FROM admin_audit_events ORDER BY id DESC LIMIT 1")
        .fetch_optional(&mut *conn)
        .await
        .map_err(storage_error)?;
    let link = chain_append(prev, entry, config_revision)?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO admin_audit_events (occurred_at, actor_user_id, actor_name, action, target_kind, target_id, \
         details, config_revision, prev_hash, row_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
         RETURNING id",
    )
    .bind(link.occurred_at)
    .bind(entry.actor.user_id.map(|u| u.0))
    .bind(&entry.actor.name)
    .bind(&entry.action)
    .bind(&entry.target_kind)
    .bind(entry.target_id.as_deref())
    .bind(&entry.details)
    .bind(config_revision.0)
    .bind(link.prev_hash.as_ref().map(|h| h.as_slice()))
    .bind(link.row_hash.as_slice())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(id)
}

#[async_trait]
impl AuditTrail for PgStore {
    async fn list_audit_events(&self, before_id: Option<i64>, limit: u32) -> Result<Vec<AuditEvent>, StorageError> {
        let rows =
            sqlx::query(concat!(audit_select!(), "WHERE ($1::bigint IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"))
                .bind(before_id)
                .bind(int8(u64::from(limit), "limit")?)
                .fetch_all(self.pool())
                .await
                .map_err(storage_error)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn verify_audit_chain(&self) -> Result<Option<i64>, StorageError> {
        let mut check = ChainCheck::default();
        loop {
            let rows = sqlx::query(concat!(audit_select!(), "WHERE id > $1 ORDER BY id LIMIT $2"))
                .bind(check.after)
                .bind(VERIFY_PAGE)
                .fetch_all(self.pool())
                .await
                .map_err(storage_error)?;
            if let ControlFlow::Break(verdict) = check.page(&rows)? {
                return Ok(verdict);
            }
        }
    }
}
