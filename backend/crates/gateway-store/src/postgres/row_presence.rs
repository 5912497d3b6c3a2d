//! Turning "no row touched" into `NotFound`, and locking the row a mutation works on.

use sqlx::PgConnection;

use gateway_core::ports::StorageError;

use crate::postgres::error_mapping::storage_error;

/// `NotFound` unless exactly one row was touched.
pub(crate) fn found(rows: u64, entity: &'static str, id: impl std::fmt::Display) -> Result<(), StorageError> {
    if rows == 1 { Ok(()) } else { Err(StorageError::not_found(entity, id)) }
}

/// Locks the addressed row for the rest of the transaction; `NotFound` if it does not exist.
pub(crate) async fn lock_row(
    conn: &mut PgConnection,
    sql: &'static str,
    id: i64,
    entity: &'static str,
) -> Result<(), StorageError> {
    let row = sqlx::query(sql).bind(id).fetch_optional(&mut *conn).await.map_err(storage_error)?;
    row.map(|_| ()).ok_or_else(|| StorageError::not_found(entity, id))
}
