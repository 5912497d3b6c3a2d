//! Group mutations of the admin unit of work.

use sqlx::SqliteConnection;

use gateway_admin::ports::GroupChanges;
use gateway_core::domain::{AccountId, GroupId};
use gateway_core::ports::StorageError;

use crate::postgres::row_presence::found;
use crate::sqlite::account_mutations::{id_list, require_row};
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::now_micros;

pub(crate) async fn create_group(conn: &mut SqliteConnection, group: &GroupChanges) -> Result<GroupId, StorageError> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO account_groups (name, description, enabled, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $4) RETURNING id",
    )
    .bind(&group.name)
    .bind(&group.description)
    .bind(group.enabled)
    .bind(now_micros())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(GroupId(id))
}

pub(crate) async fn update_group(
    conn: &mut SqliteConnection,
    group: GroupId,
    changes: &GroupChanges,
) -> Result<(), StorageError> {
    let done = sqlx::query(
        "UPDATE account_groups SET name = $2, description = $3, enabled = $4, updated_at = $5 WHERE id = $1",
    )
    .bind(group.0)
    .bind(&changes.name)
    .bind(&changes.description)
    .bind(changes.enabled)
    .bind(now_micros())
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    found(done.rows_affected(), "group", group)
}

pub(crate) async fn replace_members(
    conn: &mut SqliteConnection,
    group: GroupId,
    accounts: &[AccountId],
) -> Result<(), StorageError> {
    require_row(conn, "SELECT id FROM account_groups WHERE id = $1", group.0, "group").await?;
    sqlx::query("DELETE FROM account_group_accounts WHERE group_id = $1")
        .bind(group.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    sqlx::query(
        "INSERT INTO account_group_accounts (group_id, account_id) SELECT DISTINCT $1, j.value FROM json_each($2) AS j",
    )
    .bind(group.0)
    .bind(id_list(accounts.iter().map(|a| a.0)))
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    sqlx::query("UPDATE account_groups SET updated_at = $2 WHERE id = $1")
        .bind(group.0)
        .bind(now_micros())
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    Ok(())
}

pub(crate) async fn delete_group(conn: &mut SqliteConnection, group: GroupId) -> Result<(), StorageError> {
    let done = sqlx::query("DELETE FROM account_groups WHERE id = $1")
        .bind(group.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    found(done.rows_affected(), "group", group)
}
