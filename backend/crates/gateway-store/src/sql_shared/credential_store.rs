//! The one body of [`CredentialStore`](gateway_core::ports::CredentialStore) for both SQL
//! adapters. Each adapter module invokes [`sql_credential_store!`] with its store type and its
//! read and write pool methods; the invoking module supplies what differs: `write_facts(store,
//! account, expected, facts)` (PostgreSQL runs it on the pool, SQLite on the single writer it
//! holds for the mismatch read), `write_credential_cas`, `ts` (the timestamp encoding) and
//! `storage_error`. Rows are mapped by `rows::credentials`.

/// `sql_credential_store!(Store, reader_pool_method, writer_pool_method)`.
macro_rules! sql_credential_store {
    ($store:ident, $reader:ident, $writer:ident) => {
        #[async_trait::async_trait]
        impl gateway_core::ports::CredentialStore for $store {
            async fn read_credential(
                &self,
                account: gateway_core::domain::AccountId,
            ) -> Result<gateway_core::domain::StoredCredential, StorageError> {
                let keyring = self.keyring()?;
                let row = sqlx::query(
                    "SELECT provider, external_account_id, credential_revision, credential_key_id, \
                     credential_ciphertext FROM provider_accounts WHERE id = $1",
                )
                .bind(account.0)
                .fetch_optional(self.$reader())
                .await
                .map_err(storage_error)?
                .ok_or_else(|| StorageError::not_found("account", account))?;
                $crate::rows::credentials::credential_from_row(&row, keyring)
            }

            async fn write_credential(
                &self,
                account: gateway_core::domain::AccountId,
                expected: gateway_core::domain::CredentialRevision,
                write: gateway_core::ports::CredentialWrite,
            ) -> Result<gateway_core::domain::CredentialRevision, StorageError> {
                let keyring = self.keyring()?;
                let mut conn = self.$writer().acquire().await.map_err(storage_error)?;
                write_credential_cas(&mut conn, keyring, account, expected, &write).await
            }

            async fn write_credential_facts(
                &self,
                account: gateway_core::domain::AccountId,
                expected: gateway_core::domain::CredentialRevision,
                facts: gateway_core::domain::CredentialFacts,
            ) -> Result<(), StorageError> {
                write_facts(self, account, expected, &facts).await
            }

            async fn due_for_refresh(
                &self,
                now: time::OffsetDateTime,
                limit: u32,
            ) -> Result<Vec<gateway_core::ports::RefreshDue>, StorageError> {
                let rows = sqlx::query(
                    "SELECT id, provider, credential_revision, next_refresh_at FROM provider_accounts \
                     WHERE next_refresh_at <= $1 ORDER BY next_refresh_at, id LIMIT $2",
                )
                .bind(ts(now))
                .bind($crate::postgres::column_values::int8(u64::from(limit), "limit")?)
                .fetch_all(self.$reader())
                .await
                .map_err(storage_error)?;
                rows.iter().map($crate::rows::credentials::refresh_due_from_row).collect()
            }
        }
    };
}
pub(crate) use sql_credential_store;
