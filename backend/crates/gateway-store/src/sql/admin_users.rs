//! Administrators: [`AdminUsers`] (reads and the login stamp) and the unit-of-work mutations
//! (create, password, API key, TOTP). Rows are mapped by `rows::admin_users`.

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_admin::admin_user::{
    AdminApiKey, AdminUserId, AdminUserRecord, NewAdminUser, PasswordHash, TotpChange, TotpSecret,
};
use gateway_admin::ports::AdminUsers;
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::sealing::{open_totp, seal_totp};
use crate::row_columns::RowColumns;
use crate::rows::admin_users::{admin_user_select, sealed_totp_from_row, user_from_row};
use crate::sql::store::SqlStore;
use crate::sql::store::missing_key;
use crate::sql::{Dialect, Sql, Statement};

const COUNT: Sql = Sql::same("SELECT count(*) AS admins FROM admin_users");
const BY_USERNAME: Sql = Sql::same(concat!(admin_user_select!(), "WHERE lower(username) = lower($1)"));
const BY_API_KEY: Sql = Sql::same(concat!(admin_user_select!(), "WHERE api_key_hash = $1"));
const BY_ID: Sql = Sql::same(concat!(admin_user_select!(), "WHERE id = $1"));
const ALL: Sql = Sql::same(concat!(admin_user_select!(), "ORDER BY id"));
const TOTP_SECRET: Sql = Sql::same("SELECT totp_secret_ciphertext, totp_key_id FROM admin_users WHERE id = $1");
const STAMP_LOGIN: Sql = Sql::same("UPDATE admin_users SET last_login_at = $2 WHERE id = $1");
const INSERT: Sql = Sql::same(
    "INSERT INTO admin_users (username, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $3) RETURNING id",
);
const SET_PASSWORD: Sql = Sql::same("UPDATE admin_users SET password_hash = $2, updated_at = $3 WHERE id = $1");
const SET_API_KEY: Sql = Sql::same(
    "UPDATE admin_users SET api_key_hash = $2, api_key_prefix = $3, api_key_created_at = $4, updated_at = $5 \
     WHERE id = $1",
);
const TOTP_PENDING: Sql = Sql::same(
    "UPDATE admin_users SET totp_secret_ciphertext = $2, totp_key_id = $3, totp_enabled_at = NULL, \
     updated_at = $4 WHERE id = $1 AND totp_enabled_at IS NULL",
);
const TOTP_ENABLE: Sql = Sql::same(
    "UPDATE admin_users SET totp_secret_ciphertext = $2, totp_key_id = $3, totp_enabled_at = $4, \
     updated_at = $4 WHERE id = $1",
);
const TOTP_CLEAR: Sql = Sql::same(
    "UPDATE admin_users SET totp_secret_ciphertext = NULL, totp_key_id = NULL, totp_enabled_at = NULL, \
     updated_at = $2 WHERE id = $1",
);
const EXISTS: Sql = Sql::same("SELECT id FROM admin_users WHERE id = $1");

#[async_trait]
impl<D: Dialect> AdminUsers for SqlStore<D> {
    async fn count_admin_users(&self) -> Result<u64, StorageError> {
        let row = Statement::<D>::new(&COUNT).fetch_one(self.reader()).await?;
        Ok(u64::try_from(row.col::<i64>("admins")?).unwrap_or(0))
    }

    async fn find_admin_by_username(&self, username: &str) -> Result<Option<AdminUserRecord>, StorageError> {
        let row = Statement::<D>::new(&BY_USERNAME).bind(username).fetch_optional(self.reader()).await?;
        row.as_ref().map(user_from_row).transpose()
    }

    async fn find_admin_by_api_key(&self, hash: &[u8; 32]) -> Result<Option<AdminUserRecord>, StorageError> {
        let row = Statement::<D>::new(&BY_API_KEY).bind(hash.as_slice()).fetch_optional(self.reader()).await?;
        row.as_ref().map(user_from_row).transpose()
    }

    async fn get_admin_user(&self, id: AdminUserId) -> Result<AdminUserRecord, StorageError> {
        let row = Statement::<D>::new(&BY_ID)
            .bind(id.0)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| StorageError::not_found("admin user", id))?;
        user_from_row(&row)
    }

    async fn list_admin_users(&self) -> Result<Vec<AdminUserRecord>, StorageError> {
        let rows = Statement::<D>::new(&ALL).fetch_all(self.reader()).await?;
        rows.iter().map(user_from_row).collect()
    }

    async fn admin_totp_secret(&self, id: AdminUserId) -> Result<Option<TotpSecret>, StorageError> {
        let row = Statement::<D>::new(&TOTP_SECRET)
            .bind(id.0)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| StorageError::not_found("admin user", id))?;
        let Some(sealed) = sealed_totp_from_row(&row)? else { return Ok(None) };
        open_totp(self.keyring()?, id.0, &sealed).map(Some)
    }

    async fn record_admin_login(&self, id: AdminUserId, at: OffsetDateTime) -> Result<(), StorageError> {
        Statement::<D>::new(&STAMP_LOGIN).bind(id.0).bind(at).execute(self.writer()).await?;
        Ok(())
    }
}

pub(crate) async fn create_admin_user<D: Dialect>(
    conn: &mut D::Connection,
    user: &NewAdminUser,
) -> Result<AdminUserId, StorageError> {
    let row = Statement::<D>::new(&INSERT)
        .bind(&user.username)
        .bind(user.password_hash.as_ref().map(|h| h.0.as_str()))
        .bind(OffsetDateTime::now_utc())
        .fetch_one(conn)
        .await?;
    Ok(AdminUserId(row.col("id")?))
}

fn expect_row(rows: u64, id: AdminUserId) -> Result<(), StorageError> {
    if rows == 0 { Err(StorageError::not_found("admin user", id)) } else { Ok(()) }
}

pub(crate) async fn set_password<D: Dialect>(
    conn: &mut D::Connection,
    id: AdminUserId,
    hash: &PasswordHash,
) -> Result<(), StorageError> {
    let touched = Statement::<D>::new(&SET_PASSWORD)
        .bind(id.0)
        .bind(&hash.0)
        .bind(OffsetDateTime::now_utc())
        .execute(conn)
        .await?;
    expect_row(touched, id)
}

pub(crate) async fn set_api_key<D: Dialect>(
    conn: &mut D::Connection,
    id: AdminUserId,
    key: Option<&AdminApiKey>,
) -> Result<(), StorageError> {
    let now = OffsetDateTime::now_utc();
    let touched = Statement::<D>::new(&SET_API_KEY)
        .bind(id.0)
        .bind(key.map(|k| k.hash.as_slice()))
        .bind(key.map(|k| k.prefix.as_str()))
        .bind(key.map(|_| now))
        .bind(now)
        .execute(conn)
        .await?;
    expect_row(touched, id)
}

/// Pending: a new secret while TOTP is off (`Conflict` when it is on). Enable: the confirmed
/// secret itself is written with the enabled time. Clear: both gone.
pub(crate) async fn set_totp<D: Dialect>(
    conn: &mut D::Connection,
    keyring: Option<&Keyring>,
    id: AdminUserId,
    change: TotpChange<'_>,
) -> Result<(), StorageError> {
    let now = OffsetDateTime::now_utc();
    let statement = match change {
        TotpChange::Pending(secret) => {
            let sealed = seal_totp(keyring.ok_or_else(missing_key)?, id.0, secret)?;
            Statement::<D>::new(&TOTP_PENDING).bind(id.0).bind(sealed.ciphertext).bind(sealed.key_id).bind(now)
        }
        TotpChange::Enable(secret) => {
            let sealed = seal_totp(keyring.ok_or_else(missing_key)?, id.0, secret)?;
            Statement::<D>::new(&TOTP_ENABLE).bind(id.0).bind(sealed.ciphertext).bind(sealed.key_id).bind(now)
        }
        TotpChange::Clear => Statement::<D>::new(&TOTP_CLEAR).bind(id.0).bind(now),
    };
    if statement.execute(&mut *conn).await? == 0 {
        let exists = Statement::<D>::new(&EXISTS).bind(id.0).fetch_optional(conn).await?.is_some();
        return Err(if exists {
            StorageError::Conflict { constraint: "admin_users_totp_enabled".to_owned() }
        } else {
            StorageError::not_found("admin user", id)
        });
    }
    Ok(())
}
