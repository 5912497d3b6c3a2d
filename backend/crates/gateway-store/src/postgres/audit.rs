//! The audit trail: appending the hash-chained row inside a unit of work, listing, verifying.
//!
//! Appends are serialised by the `runtime_settings` row lock that the same transaction took when
//! it bumped `config_revision`, so reading the previous hash and inserting cannot interleave.

use async_trait::async_trait;
use sqlx::PgConnection;
use time::OffsetDateTime;

use gateway_admin::audit::{AuditChainLink, AuditEntry, AuditEvent, audit_row_hash};
use gateway_admin::ports::AuditTrail;
use gateway_core::domain::ConfigRevision;
use gateway_core::ports::StorageError;

use crate::postgres::PgStore;
use crate::postgres::column_values::{digest, int8};
use crate::postgres::error_mapping::storage_error;
use crate::rows::audit::event_from_row;

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
    let prev_hash = prev.map(|h| digest(h, "admin_audit_events.row_hash")).transpose()?;
    let occurred_at = now_micros();
    let row_hash = audit_row_hash(&AuditChainLink {
        prev_hash: prev_hash.as_ref(),
        occurred_at,
        actor_user_id: entry.actor.user_id,
        actor_name: &entry.actor.name,
        action: &entry.action,
        target_kind: &entry.target_kind,
        target_id: entry.target_id.as_deref(),
        details: &entry.details,
        config_revision,
    });
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO admin_audit_events (occurred_at, actor_user_id, actor_name, action, target_kind, target_id, \
         details, config_revision, prev_hash, row_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
         RETURNING id",
    )
    .bind(occurred_at)
    .bind(entry.actor.user_id.map(|u| u.0))
    .bind(&entry.actor.name)
    .bind(&entry.action)
    .bind(&entry.target_kind)
    .bind(entry.target_id.as_deref())
    .bind(&entry.details)
    .bind(config_revision.0)
    .bind(prev_hash.as_ref().map(|h| h.as_slice()))
    .bind(row_hash.as_slice())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(id)
}

/// The current time at the precision PostgreSQL stores (microseconds), so the hash computed now
/// equals the hash recomputed from the stored row.
fn now_micros() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc();
    now.replace_nanosecond(now.nanosecond() / 1_000 * 1_000).unwrap_or(now)
}

macro_rules! audit_select {
    () => {
        "SELECT id, occurred_at, actor_user_id, actor_name, action, target_kind, target_id, details, \
         config_revision, prev_hash, row_hash FROM admin_audit_events "
    };
}

/// Rows read per round trip while verifying the chain.
const VERIFY_PAGE: i64 = 500;

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
        let mut after = 0_i64;
        let mut expected_prev: Option<[u8; 32]> = None;
        loop {
            let rows = sqlx::query(concat!(audit_select!(), "WHERE id > $1 ORDER BY id LIMIT $2"))
                .bind(after)
                .bind(VERIFY_PAGE)
                .fetch_all(self.pool())
                .await
                .map_err(storage_error)?;
            if rows.is_empty() {
                return Ok(None);
            }
            for row in &rows {
                let event = event_from_row(row)?;
                if event.prev_hash != expected_prev || event.expected_hash() != event.row_hash {
                    return Ok(Some(event.id));
                }
                expected_prev = Some(event.row_hash);
                after = event.id;
            }
        }
    }
}
