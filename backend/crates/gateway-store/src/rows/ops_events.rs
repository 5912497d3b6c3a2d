//! Mapping `ops_events` rows to [`StoredOpsEvent`], for both dialects.

use gateway_admin::ports::StoredOpsEvent;
use gateway_core::domain::{AccountId, OpsEvent, OpsLevel, RequestId};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::closed;
use crate::row_columns::RowColumns;

/// The select list [`event_from_row`] reads; the same text on both dialects.
macro_rules! ops_select {
    () => {
        "SELECT id, occurred_at, level, kind, provider, account_id, request_id, message, details FROM ops_events "
    };
}
pub(crate) use ops_select;

/// The levels at or above `level` (the filter's "at least"); each dialect binds them as a list.
pub(crate) fn levels_at_least(level: Option<OpsLevel>) -> Option<Vec<&'static str>> {
    let level = level?;
    Some(OpsLevel::ALL.iter().filter(|l| **l >= level).map(|l| l.as_str()).collect())
}

pub(crate) fn event_from_row(row: &impl RowColumns) -> Result<StoredOpsEvent, StorageError> {
    Ok(StoredOpsEvent {
        id: row.col("id")?,
        event: OpsEvent {
            occurred_at: row.ts("occurred_at")?,
            level: closed(row.col::<&str>("level")?, "ops_events.level")?,
            kind: row.col("kind")?,
            provider: row.col::<Option<&str>>("provider")?.map(|p| closed(p, "ops_events.provider")).transpose()?,
            account_id: row.col::<Option<i64>>("account_id")?.map(AccountId),
            request_id: row.col::<Option<uuid::Uuid>>("request_id")?.map(RequestId),
            message: row.col("message")?,
            details: row.json("details")?,
        },
    })
}
