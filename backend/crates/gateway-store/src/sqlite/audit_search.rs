//! [`AuditSearch`]: filtered, keyset-paged reading of the audit trail.

use async_trait::async_trait;

use gateway_admin::audit::AuditEvent;
use gateway_admin::ports::{AuditFilter, AuditSearch};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::int8;
use crate::rows::audit::{audit_select, event_from_row};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::opt_micros;

#[async_trait]
impl AuditSearch for SqliteStore {
    async fn search_audit(
        &self,
        filter: &AuditFilter,
        before_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<AuditEvent>, StorageError> {
        let rows = sqlx::query(concat!(
            audit_select!(),
            "WHERE ($1 IS NULL OR occurred_at >= $1) AND ($2 IS NULL OR occurred_at < $2) \
             AND ($3 IS NULL OR lower(actor_name) = lower($3)) \
             AND ($4 IS NULL OR substr(action, 1, length($4)) = $4) \
             AND ($5 IS NULL OR target_kind = $5) AND ($6 IS NULL OR target_id = $6) \
             AND ($7 IS NULL OR id < $7) ORDER BY id DESC LIMIT $8"
        ))
        .bind(opt_micros(filter.from))
        .bind(opt_micros(filter.to))
        .bind(filter.actor.as_deref())
        .bind(filter.action.as_deref())
        .bind(filter.target_kind.as_deref())
        .bind(filter.target_id.as_deref())
        .bind(before_id)
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.reader())
        .await
        .map_err(storage_error)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn get_audit_event(&self, id: i64) -> Result<AuditEvent, StorageError> {
        let row = sqlx::query(concat!(audit_select!(), "WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.reader())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("audit event", id))?;
        event_from_row(&row)
    }
}
