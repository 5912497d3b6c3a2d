//! Mapping `admin_users` rows, for both dialects.

use gateway_admin::admin_user::{AdminUserId, AdminUserRecord, PasswordHash};
use gateway_core::ports::StorageError;

use crate::crypto::SealedSecret;
use crate::row_columns::RowColumns;

/// The columns [`user_from_row`] reads.
macro_rules! admin_user_select {
    () => {
        "SELECT id, username, password_hash, enabled, totp_enabled_at, api_key_prefix, \
         api_key_created_at, last_login_at, created_at FROM admin_users "
    };
}
pub(crate) use admin_user_select;

pub(crate) fn user_from_row(row: &impl RowColumns) -> Result<AdminUserRecord, StorageError> {
    Ok(AdminUserRecord {
        id: AdminUserId(row.col("id")?),
        username: row.col("username")?,
        password_hash: row.col::<Option<String>>("password_hash")?.map(PasswordHash),
        enabled: row.col("enabled")?,
        totp_enabled: row.opt_ts("totp_enabled_at")?.is_some(),
        api_key_prefix: row.col("api_key_prefix")?,
        api_key_created_at: row.opt_ts("api_key_created_at")?,
        last_login_at: row.opt_ts("last_login_at")?,
        created_at: row.ts("created_at")?,
    })
}

/// `totp_secret_ciphertext, totp_key_id`: the sealed TOTP secret, `None` when there is none.
pub(crate) fn sealed_totp_from_row(row: &impl RowColumns) -> Result<Option<SealedSecret>, StorageError> {
    let (Some(ciphertext), Some(key_id)) =
        (row.col::<Option<Vec<u8>>>("totp_secret_ciphertext")?, row.col::<Option<String>>("totp_key_id")?)
    else {
        return Ok(None);
    };
    Ok(Some(SealedSecret { key_id, ciphertext }))
}
