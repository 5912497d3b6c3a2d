//! The one body of account reads for both SQL adapters: the snapshot's loaders and
//! [`AccountDirectory`](gateway_admin::ports::AccountDirectory). The statements are the same text
//! on both dialects and the rows are mapped by `rows::accounts`; each adapter invokes
//! [`sql_account_reads!`] with its store type, its executor trait and its read pool method, and
//! `storage_error` is the invoking module's own.

/// `sql_account_reads!(Store, ExecutorTrait, reader_pool_method)`: defines
/// `load_all_accounts` and `load_account` over any executor of the dialect (a pool or a
/// snapshot's transaction) and implements `AccountDirectory` for the store.
macro_rules! sql_account_reads {
    ($store:ident, $executor:ident, $reader:ident) => {
        pub(crate) async fn load_all_accounts<'c>(
            executor: impl sqlx::$executor<'c>,
            keyring: &$crate::crypto::Keyring,
        ) -> Result<Vec<gateway_core::domain::AccountRecord>, StorageError> {
            let rows = sqlx::query(concat!($crate::rows::accounts::account_select!(), "ORDER BY a.id"))
                .fetch_all(executor)
                .await
                .map_err(storage_error)?;
            rows.iter().map(|row| $crate::rows::accounts::account_from_row(row, keyring)).collect()
        }

        pub(crate) async fn load_account<'c>(
            executor: impl sqlx::$executor<'c>,
            keyring: &$crate::crypto::Keyring,
            id: gateway_core::domain::AccountId,
        ) -> Result<gateway_core::domain::AccountRecord, StorageError> {
            let row = sqlx::query(concat!($crate::rows::accounts::account_select!(), "WHERE a.id = $1"))
                .bind(id.0)
                .fetch_optional(executor)
                .await
                .map_err(storage_error)?
                .ok_or_else(|| StorageError::not_found("account", id))?;
            $crate::rows::accounts::account_from_row(&row, keyring)
        }

        #[async_trait::async_trait]
        impl gateway_admin::ports::AccountDirectory for $store {
            async fn list_accounts(&self) -> Result<Vec<gateway_core::domain::AccountRecord>, StorageError> {
                load_all_accounts(self.$reader(), self.keyring()?).await
            }

            async fn get_account(
                &self,
                id: gateway_core::domain::AccountId,
            ) -> Result<gateway_core::domain::AccountRecord, StorageError> {
                load_account(self.$reader(), self.keyring()?, id).await
            }

            async fn account_groups(
                &self,
                id: gateway_core::domain::AccountId,
            ) -> Result<Vec<gateway_core::domain::GroupId>, StorageError> {
                let ids: Vec<i64> = sqlx::query_scalar(
                    "SELECT group_id FROM account_group_accounts WHERE account_id = $1 ORDER BY group_id",
                )
                .bind(id.0)
                .fetch_all(self.$reader())
                .await
                .map_err(storage_error)?;
                Ok(ids.into_iter().map(gateway_core::domain::GroupId).collect())
            }
        }
    };
}

pub(crate) use sql_account_reads;
