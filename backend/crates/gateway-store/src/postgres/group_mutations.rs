//! Group mutations of the admin unit of work.

use sqlx::PgConnection;

use gateway_admin::ports::GroupChanges;
use gateway_core::domain::{AccountId, GroupId};
use gateway_core::ports::StorageError;

use crate::postgres::error_mapping::storage_error;
use crate::postgres::row_presence::{found, lock_row};

pub(crate) async fn create_group(conn: &mut PgConnection, group: &GroupChanges) -> Result<GroupId, StorageError> {
    let id: i64 =
        sqlx::query_scalar("INSERT INTO account_groups (name, description, enabled) VALUES ($1, $2, $3) RETURNING id")
            .bind(&group.name)
            .bind(&group.description)
            .bind(group.enabled)
            .fetch_one(&mut *conn)
            .await
            .map_err(storage_error)?;
    Ok(GroupId(id))
}

pub(crate) async fn update_group(
    conn: &mut PgConnection,
    group: GroupId,
    changes: &GroupChanges,
) -> Result<(), StorageError> {
    let done = sqlx::query(
        "UPDATE account_groups SET name = $2, description = $3, enabled = $4, updated_at = now() WHERE id = $1",
    )
    .bind(group.0)
    .bind(&changes.name)
    .bind(&changes.description)
    .bind(changes.enabled)
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    found(done.rows_affected(), "group", group)
}

pub(crate) async fn replace_members(
    conn: &mut PgConnection,
    group: GroupId,
    accounts: &[AccountId],
) -> Result<(), StorageError> {
    lock_row(conn, "SELECT id FROM account_groups WHERE id = $1 FOR UPDATE", group.0, "group").await?;
    sqlx::query("DELETE FROM account_group_accounts WHERE group_id = $1")
        .bind(group.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    let ids: Vec<i64> = accounts.iter().map(|a| a.0).collect();
    sqlx::query(
        "INSERT INTO account_group_accounts (group_id, account_id) \
         SELECT DISTINCT $1::bigint, a FROM unnest($2::bigint[]) AS a",
    )
    .bind(group.0)
    .bind(&ids)
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    sqlx::query("UPDATE account_groups SET updated_at = now() WHERE id = $1")
        .bind(group.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    Ok(())
}

pub(crate) async fn delete_group(conn: &mut PgConnection, group: GroupId) -> Result<(), StorageError> {
    let done = sqlx::query("DELETE FROM account_groups WHERE id = $1")
        .bind(group.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    found(done.rows_affected(), "group", group)
}
