//! Administrators: `AdminUsers` (its one body for both dialects: `sql_shared::admin_user_reads`)
//! and the unit-of-work mutations (create, password, API key, TOTP).

use sqlx::SqliteConnection;

use gateway_admin::admin_user::{AdminApiKey, AdminUserId, NewAdminUser, PasswordHash, TotpChange};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::sealing::seal_totp;
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::{micros, now_micros};

crate::sql_shared::admin_user_reads::sql_admin_users!(SqliteStore, reader, writer, micros);

pub(crate) async fn create_admin_user(
    conn: &mut SqliteConnection,
    user: &NewAdminUser,
) -> Result<AdminUserId, StorageError> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO admin_users (username, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $3) \
         RETURNING id",
    )
    .bind(&user.username)
    .bind(user.password_hash.as_ref().map(|h| h.0.as_str()))
    .bind(now_micros())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(AdminUserId(id))
}

fn expect_row(rows: u64, id: AdminUserId) -> Result<(), StorageError> {
    if rows == 0 { Err(StorageError::not_found("admin user", id)) } else { Ok(()) }
}

pub(crate) async fn set_password(
    conn: &mut SqliteConnection,
    id: AdminUserId,
    hash: &PasswordHash,
) -> Result<(), StorageError> {
    let result = sqlx::query("UPDATE admin_users SET password_hash = $2, updated_at = $3 WHERE id = $1")
        .bind(id.0)
        .bind(&hash.0)
        .bind(now_micros())
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    expect_row(result.rows_affected(), id)
}

pub(crate) async fn set_api_key(
    conn: &mut SqliteConnection,
    id: AdminUserId,
    key: Option<&AdminApiKey>,
) -> Result<(), StorageError> {
    let now = now_micros();
    let result = sqlx::query(
        "UPDATE admin_users SET api_key_hash = $2, api_key_prefix = $3, api_key_created_at = $4, updated_at = $5 \
         WHERE id = $1",
    )
    .bind(id.0)
    .bind(key.map(|k| k.hash.to_vec()))
    .bind(key.map(|k| k.prefix.as_str()))
    .bind(key.map(|_| now))
    .bind(now)
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    expect_row(result.rows_affected(), id)
}

fn missing_key() -> StorageError {
    StorageError::Misconfigured("secrets.master_key is not configured".to_owned())
}

/// Pending: a new secret while TOTP is off (`Conflict` when it is on). Enable: the confirmed
/// secret itself is written with the enabled time. Clear: both gone.
pub(crate) async fn set_totp(
    conn: &mut SqliteConnection,
    keyring: Option<&Keyring>,
    id: AdminUserId,
    change: TotpChange<'_>,
) -> Result<(), StorageError> {
    let now = now_micros();
    let query = match change {
        TotpChange::Pending(secret) => {
            let sealed = seal_totp(keyring.ok_or_else(missing_key)?, id.0, secret)?;
            sqlx::query(
                "UPDATE admin_users SET totp_secret_ciphertext = $2, totp_key_id = $3, totp_enabled_at = NULL, \
                 updated_at = $4 WHERE id = $1 AND totp_enabled_at IS NULL",
            )
            .bind(id.0)
            .bind(sealed.ciphertext)
            .bind(sealed.key_id)
            .bind(now)
        }
        TotpChange::Enable(secret) => {
            let sealed = seal_totp(keyring.ok_or_else(missing_key)?, id.0, secret)?;
            sqlx::query(
                "UPDATE admin_users SET totp_secret_ciphertext = $2, totp_key_id = $3, totp_enabled_at = $4, \
                 updated_at = $4 WHERE id = $1",
            )
            .bind(id.0)
            .bind(sealed.ciphertext)
            .bind(sealed.key_id)
            .bind(now)
        }
        TotpChange::Clear => sqlx::query(
            "UPDATE admin_users SET totp_secret_ciphertext = NULL, totp_key_id = NULL, totp_enabled_at = NULL, \
             updated_at = $2 WHERE id = $1",
        )
        .bind(id.0)
        .bind(now),
    };
    let result = query.execute(&mut *conn).await.map_err(storage_error)?;
    if result.rows_affected() == 0 {
        let exists: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM admin_users WHERE id = $1)")
            .bind(id.0)
            .fetch_one(&mut *conn)
            .await
            .map_err(storage_error)?;
        return Err(if exists {
            StorageError::Conflict { constraint: "admin_users_totp_enabled".to_owned() }
        } else {
            StorageError::not_found("admin user", id)
        });
    }
    Ok(())
}
