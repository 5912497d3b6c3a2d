//! The one body of [`AdminUsers`](gateway_admin::ports::AdminUsers) for both SQL adapters: the
//! statements are the same text on both dialects, the rows are mapped by `rows::admin_users`;
//! each adapter invokes [`sql_admin_users!`] with its store type, its read and write pool
//! methods and how it binds a timestamp, and `storage_error` is the invoking module's own.

/// `sql_admin_users!(Store, reader_pool_method, writer_pool_method, timestamp_binding)`.
macro_rules! sql_admin_users {
    ($store:ident, $reader:ident, $writer:ident, $ts:path) => {
        #[async_trait::async_trait]
        impl gateway_admin::ports::AdminUsers for $store {
            async fn count_admin_users(&self) -> Result<u64, StorageError> {
                let count: i64 = sqlx::query_scalar("SELECT count(*) FROM admin_users")
                    .fetch_one(self.$reader())
                    .await
                    .map_err(storage_error)?;
                Ok(u64::try_from(count).unwrap_or(0))
            }

            async fn find_admin_by_username(
                &self,
                username: &str,
            ) -> Result<Option<gateway_admin::admin_user::AdminUserRecord>, StorageError> {
                let row = sqlx::query(concat!(
                    $crate::rows::admin_users::admin_user_select!(),
                    "WHERE lower(username) = lower($1)"
                ))
                .bind(username)
                .fetch_optional(self.$reader())
                .await
                .map_err(storage_error)?;
                row.as_ref().map($crate::rows::admin_users::user_from_row).transpose()
            }

            async fn find_admin_by_api_key(
                &self,
                hash: &[u8; 32],
            ) -> Result<Option<gateway_admin::admin_user::AdminUserRecord>, StorageError> {
                let row =
                    sqlx::query(concat!($crate::rows::admin_users::admin_user_select!(), "WHERE api_key_hash = $1"))
                        .bind(hash.as_slice())
                        .fetch_optional(self.$reader())
                        .await
                        .map_err(storage_error)?;
                row.as_ref().map($crate::rows::admin_users::user_from_row).transpose()
            }

            async fn get_admin_user(
                &self,
                id: gateway_admin::admin_user::AdminUserId,
            ) -> Result<gateway_admin::admin_user::AdminUserRecord, StorageError> {
                let row = sqlx::query(concat!($crate::rows::admin_users::admin_user_select!(), "WHERE id = $1"))
                    .bind(id.0)
                    .fetch_optional(self.$reader())
                    .await
                    .map_err(storage_error)?
                    .ok_or_else(|| StorageError::not_found("admin user", id))?;
                $crate::rows::admin_users::user_from_row(&row)
            }

            async fn list_admin_users(&self) -> Result<Vec<gateway_admin::admin_user::AdminUserRecord>, StorageError> {
                let rows = sqlx::query(concat!($crate::rows::admin_users::admin_user_select!(), "ORDER BY id"))
                    .fetch_all(self.$reader())
                    .await
                    .map_err(storage_error)?;
                rows.iter().map($crate::rows::admin_users::user_from_row).collect()
            }

            async fn admin_totp_secret(
                &self,
                id: gateway_admin::admin_user::AdminUserId,
            ) -> Result<Option<gateway_admin::admin_user::TotpSecret>, StorageError> {
                let row = sqlx::query("SELECT totp_secret_ciphertext, totp_key_id FROM admin_users WHERE id = $1")
                    .bind(id.0)
                    .fetch_optional(self.$reader())
                    .await
                    .map_err(storage_error)?
                    .ok_or_else(|| StorageError::not_found("admin user", id))?;
                let Some(sealed) = $crate::rows::admin_users::sealed_totp_from_row(&row)? else { return Ok(None) };
                $crate::postgres::sealing::open_totp(self.keyring()?, id.0, &sealed).map(Some)
            }

            async fn record_admin_login(
                &self,
                id: gateway_admin::admin_user::AdminUserId,
                at: time::OffsetDateTime,
            ) -> Result<(), StorageError> {
                sqlx::query("UPDATE admin_users SET last_login_at = $2 WHERE id = $1")
                    .bind(id.0)
                    .bind($ts(at))
                    .execute(self.$writer())
                    .await
                    .map_err(storage_error)?;
                Ok(())
            }
        }
    };
}
pub(crate) use sql_admin_users;
