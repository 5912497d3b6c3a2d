//! Mapping `admin_audit_events` rows to [`AuditEvent`], for both dialects.

use gateway_admin::admin_user::AdminUserId;
use gateway_admin::audit::{AuditActor, AuditEvent};
use gateway_core::domain::ConfigRevision;
use gateway_core::ports::StorageError;

use crate::postgres::column_values::digest;
use crate::row_columns::RowColumns;

/// The select list [`event_from_row`] reads; the same text on both dialects.
macro_rules! audit_select {
    () => {
        "SELECT id, occurred_at, actor_user_id, actor_name, action, target_kind, target_id, details, \
         config_revision, prev_hash, row_hash FROM admin_audit_events "
    };
}
pub(crate) use audit_select;

pub(crate) fn event_from_row(row: &impl RowColumns) -> Result<AuditEvent, StorageError> {
    Ok(AuditEvent {
        id: row.col("id")?,
        occurred_at: row.ts("occurred_at")?,
        actor: AuditActor {
            user_id: row.col::<Option<i64>>("actor_user_id")?.map(AdminUserId),
            name: row.col("actor_name")?,
        },
        action: row.col("action")?,
        target_kind: row.col("target_kind")?,
        target_id: row.col("target_id")?,
        details: row.json("details")?,
        config_revision: ConfigRevision(row.col("config_revision")?),
        prev_hash: row
            .col::<Option<Vec<u8>>>("prev_hash")?
            .map(|h| digest(h, "admin_audit_events.prev_hash"))
            .transpose()?,
        row_hash: digest(row.col("row_hash")?, "admin_audit_events.row_hash")?,
    })
}
