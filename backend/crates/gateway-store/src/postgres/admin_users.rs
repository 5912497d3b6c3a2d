//! Administrators: `AdminUsers` (its one body for both dialects: `sql_shared::admin_user_reads`)
//! and the unit-of-work mutations (create, password, API key).

use sqlx::PgConnection;

use gateway_admin::admin_user::{AdminApiKey, AdminUserId, NewAdminUser, PasswordHash, TotpChange};
use gateway_core::ports::StorageError;

use crate::crypto::{Keyring, SealedSecret};
use crate::postgres::PgStore;
use crate::postgres::column_values::timestamp;
use crate::postgres::error_mapping::storage_error;
use crate::postgres::sealing::seal_totp;

crate::sql_shared::admin_user_reads::sql_admin_users!(PgStore, pool, pool, timestamp);

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

fn missing_key() -> StorageError {
    StorageError::Misconfigured("secrets.master_key is not configured".to_owned())
}

/// Pending: a new secret while TOTP is off (`Conflict` when it is on). Enable: the confirmed
/// secret itself is written with the enabled time, so a concurrent re-enrollment cannot switch
/// the secret under the confirmation. Clear: both gone.
pub(crate) async fn set_totp(
    conn: &mut PgConnection,
    keyring: Option<&Keyring>,
    id: AdminUserId,
    change: TotpChange<'_>,
) -> Result<(), StorageError> {
    let query = match change {
        TotpChange::Pending(secret) => sqlx::query(
            "UPDATE admin_users SET totp_secret_ciphertext = $2, totp_key_id = $3, totp_enabled_at = NULL, \
             updated_at = now() WHERE id = $1 AND totp_enabled_at IS NULL",
        )
        .bind(id.0)
        .bind_sealed(seal_totp(keyring.ok_or_else(missing_key)?, id.0, secret)?),
        TotpChange::Enable(secret) => sqlx::query(
            "UPDATE admin_users SET totp_secret_ciphertext = $2, totp_key_id = $3, totp_enabled_at = now(), \
             updated_at = now() WHERE id = $1",
        )
        .bind(id.0)
        .bind_sealed(seal_totp(keyring.ok_or_else(missing_key)?, id.0, secret)?),
        TotpChange::Clear => sqlx::query(
            "UPDATE admin_users SET totp_secret_ciphertext = NULL, totp_key_id = NULL, totp_enabled_at = NULL, \
             updated_at = now() WHERE id = $1",
        )
        .bind(id.0),
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

type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

trait BindSealed<'q> {
    /// Binds the ciphertext and key id, in that order.
    fn bind_sealed(self, sealed: SealedSecret) -> PgQuery<'q>;
}

impl<'q> BindSealed<'q> for PgQuery<'q> {
    fn bind_sealed(self, sealed: SealedSecret) -> PgQuery<'q> {
        self.bind(sealed.ciphertext).bind(sealed.key_id)
    }
}
