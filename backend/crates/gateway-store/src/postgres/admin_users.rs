//! Administrators: [`AdminUsers`] reads, the last-login stamp, and the unit-of-work mutations
//! (create, password, API key).

use async_trait::async_trait;
use sqlx::PgConnection;
use sqlx::postgres::PgRow;
use time::OffsetDateTime;

use gateway_admin::admin_user::{AdminApiKey, AdminUserId, AdminUserRecord, NewAdminUser, PasswordHash};
use gateway_admin::ports::AdminUsers;
use gateway_core::ports::StorageError;

use crate::postgres::PgStore;
use crate::postgres::column_values::ColumnRead;
use crate::postgres::error_mapping::storage_error;

const SELECT: &str = "SELECT id, username, password_hash, enabled, totp_enabled_at, api_key_prefix, \
     api_key_created_at, last_login_at, created_at FROM admin_users ";

fn user_from_row(row: &PgRow) -> Result<AdminUserRecord, StorageError> {
    Ok(AdminUserRecord {
        id: AdminUserId(row.col("id")?),
        username: row.col("username")?,
        password_hash: row.col::<Option<String>>("password_hash")?.map(PasswordHash),
        enabled: row.col("enabled")?,
        totp_enabled: row.col::<Option<OffsetDateTime>>("totp_enabled_at")?.is_some(),
        api_key_prefix: row.col("api_key_prefix")?,
        api_key_created_at: row.col("api_key_created_at")?,
        last_login_at: row.col("last_login_at")?,
        created_at: row.col("created_at")?,
    })
}

#[async_trait]
impl AdminUsers for PgStore {
    async fn count_admin_users(&self) -> Result<u64, StorageError> {
        let count: i64 = sqlx::query_scalar("SELECT count(*) FROM admin_users")
            .fetch_one(self.pool())
            .await
            .map_err(storage_error)?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    async fn find_admin_by_username(&self, username: &str) -> Result<Option<AdminUserRecord>, StorageError> {
        let row = sqlx::query(const_str(SELECT, "WHERE lower(username) = lower($1)"))
            .bind(username)
            .fetch_optional(self.pool())
            .await
            .map_err(storage_error)?;
        row.as_ref().map(user_from_row).transpose()
    }

    async fn find_admin_by_api_key(&self, hash: &[u8; 32]) -> Result<Option<AdminUserRecord>, StorageError> {
        let row = sqlx::query(const_str(SELECT, "WHERE api_key_hash = $1"))
            .bind(hash.as_slice())
            .fetch_optional(self.pool())
            .await
            .map_err(storage_error)?;
        row.as_ref().map(user_from_row).transpose()
    }

    async fn get_admin_user(&self, id: AdminUserId) -> Result<AdminUserRecord, StorageError> {
        let row = sqlx::query(const_str(SELECT, "WHERE id = $1"))
            .bind(id.0)
            .fetch_optional(self.pool())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("admin user", id))?;
        user_from_row(&row)
    }

    async fn list_admin_users(&self) -> Result<Vec<AdminUserRecord>, StorageError> {
        let rows = sqlx::query(const_str(SELECT, "ORDER BY id")).fetch_all(self.pool()).await.map_err(storage_error)?;
        rows.iter().map(user_from_row).collect()
    }

    async fn record_admin_login(&self, id: AdminUserId, at: OffsetDateTime) -> Result<(), StorageError> {
        sqlx::query("UPDATE admin_users SET last_login_at = $2 WHERE id = $1")
            .bind(id.0)
            .bind(at)
            .execute(self.pool())
            .await
            .map_err(storage_error)?;
        Ok(())
    }
}

/// The statements are fixed strings; joining two of them yields a `'static` text.
fn const_str(head: &'static str, tail: &'static str) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(format!("{head}{tail}"))
}

pub(crate) async fn create_admin_user(
    conn: &mut PgConnection,
    user: &NewAdminUser,
) -> Result<AdminUserId, StorageError> {
    let id: i64 = sqlx::query_scalar("INSERT INTO admin_users (username, password_hash) VALUES ($1, $2) RETURNING id")
        .bind(&user.username)
        .bind(user.password_hash.as_ref().map(|h| h.0.as_str()))
        .fetch_one(&mut *conn)
        .await
        .map_err(storage_error)?;
    Ok(AdminUserId(id))
}

async fn expect_row(result: sqlx::postgres::PgQueryResult, id: AdminUserId) -> Result<(), StorageError> {
    if result.rows_affected() == 0 { Err(StorageError::not_found("admin user", id)) } else { Ok(()) }
}

pub(crate) async fn set_password(
    conn: &mut PgConnection,
    id: AdminUserId,
    hash: &PasswordHash,
) -> Result<(), StorageError> {
    let result = sqlx::query("UPDATE admin_users SET password_hash = $2, updated_at = now() WHERE id = $1")
        .bind(id.0)
        .bind(&hash.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    expect_row(result, id).await
}

pub(crate) async fn set_api_key(
    conn: &mut PgConnection,
    id: AdminUserId,
    key: Option<&AdminApiKey>,
) -> Result<(), StorageError> {
    let result = sqlx::query(
        "UPDATE admin_users SET api_key_hash = $2, api_key_prefix = $3, \
         api_key_created_at = CASE WHEN $2::bytea IS NULL THEN NULL ELSE now() END, updated_at = now() WHERE id = $1",
    )
    .bind(id.0)
    .bind(key.map(|k| k.hash.to_vec()))
    .bind(key.map(|k| k.prefix.as_str()))
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    expect_row(result, id).await
}
