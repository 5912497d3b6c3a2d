//! The one body of [`CookieJarStore`](gateway_core::ports::CookieJarStore) for both SQL adapters
//! (the SQL text is the same in both dialects). Each adapter module invokes
//! [`sql_cookie_jar_store!`] with its store type and its read and write pool methods; the invoking
//! module supplies `ts` (the timestamp encoding) and `storage_error`. Rows are mapped by
//! `rows::cookie_jars`.

/// `sql_cookie_jar_store!(Store, reader_pool_method, writer_pool_method)`.
macro_rules! sql_cookie_jar_store {
    ($store:ident, $reader:ident, $writer:ident) => {
        #[async_trait::async_trait]
        impl gateway_core::ports::CookieJarStore for $store {
            async fn load_cookie_jars(&self) -> Result<Vec<gateway_core::ports::StoredCookieJar>, StorageError> {
                let keyring = self.keyring()?;
                let rows = sqlx::query(
                    "SELECT account_id, egress_path, jar_ciphertext, jar_key_id, cookies, updated_at \
                     FROM account_cookies ORDER BY account_id",
                )
                .fetch_all(self.$reader())
                .await
                .map_err(storage_error)?;
                let mut jars = Vec::with_capacity(rows.len());
                for row in &rows {
                    jars.extend($crate::rows::cookie_jars::jar_from_row(row, keyring)?);
                }
                Ok(jars)
            }

            async fn save_cookie_jar(&self, jar: &gateway_core::ports::StoredCookieJar) -> Result<(), StorageError> {
                let sealed = $crate::rows::cookie_jars::seal_jar(self.keyring()?, jar.account, &jar.jar)?;
                // Written only while the account exists (a deleted one takes its jar with it).
                sqlx::query(
                    "INSERT INTO account_cookies (account_id, egress_path, jar_ciphertext, jar_key_id, cookies, \
                     updated_at) SELECT id, $2, $3, $4, $5, $6 FROM provider_accounts WHERE id = $1 \
                     ON CONFLICT (account_id) DO UPDATE SET egress_path = EXCLUDED.egress_path, \
                     jar_ciphertext = EXCLUDED.jar_ciphertext, jar_key_id = EXCLUDED.jar_key_id, \
                     cookies = EXCLUDED.cookies, updated_at = EXCLUDED.updated_at",
                )
                .bind(jar.account.0)
                .bind(jar.egress_path.clone())
                .bind(sealed.ciphertext)
                .bind(sealed.key_id)
                .bind($crate::rows::cookie_jars::facts_json(&jar.cookies)?)
                .bind(ts(jar.updated_at))
                .execute(self.$writer())
                .await
                .map_err(storage_error)?;
                Ok(())
            }

            async fn delete_cookie_jar(&self, account: gateway_core::domain::AccountId) -> Result<(), StorageError> {
                sqlx::query("DELETE FROM account_cookies WHERE account_id = $1")
                    .bind(account.0)
                    .execute(self.$writer())
                    .await
                    .map_err(storage_error)?;
                Ok(())
            }

            async fn cookie_jar_facts(
                &self,
                account: gateway_core::domain::AccountId,
            ) -> Result<Option<gateway_core::ports::CookieJarFacts>, StorageError> {
                let row =
                    sqlx::query("SELECT egress_path, cookies, updated_at FROM account_cookies WHERE account_id = $1")
                        .bind(account.0)
                        .fetch_optional(self.$reader())
                        .await
                        .map_err(storage_error)?;
                row.as_ref().map($crate::rows::cookie_jars::facts_from_row).transpose()
            }
        }
    };
}
pub(crate) use sql_cookie_jar_store;
