//! Reading accounts ([`AccountDirectory`] and the snapshot loader).

use async_trait::async_trait;
use sqlx::SqliteExecutor;

use gateway_admin::ports::AccountDirectory;
use gateway_core::domain::{AccountId, AccountRecord, GroupId};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::rows::accounts::{account_from_row, account_select};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;

pub(crate) async fn load_all_accounts<'c>(
    executor: impl SqliteExecutor<'c>,
    keyring: &Keyring,
) -> Result<Vec<AccountRecord>, StorageError> {
    let rows =
        sqlx::query(concat!(account_select!(), "ORDER BY a.id")).fetch_all(executor).await.map_err(storage_error)?;
    rows.iter().map(|row| account_from_row(row, keyring)).collect()
}

pub(crate) async fn load_account<'c>(
    executor: impl SqliteExecutor<'c>,
    keyring: &Keyring,
    id: AccountId,
) -> Result<AccountRecord, StorageError> {
    let row = sqlx::query(concat!(account_select!(), "WHERE a.id = $1"))
        .bind(id.0)
        .fetch_optional(executor)
        .await
        .map_err(storage_error)?
        .ok_or_else(|| StorageError::not_found("account", id))?;
    account_from_row(&row, keyring)
}

#[async_trait]
impl AccountDirectory for SqliteStore {
    async fn list_accounts(&self) -> Result<Vec<AccountRecord>, StorageError> {
        load_all_accounts(self.reader(), self.keyring()?).await
    }

    async fn get_account(&self, id: AccountId) -> Result<AccountRecord, StorageError> {
        load_account(self.reader(), self.keyring()?, id).await
    }

    async fn account_groups(&self, id: AccountId) -> Result<Vec<GroupId>, StorageError> {
        let ids: Vec<i64> =
            sqlx::query_scalar("SELECT group_id FROM account_group_accounts WHERE account_id = $1 ORDER BY group_id")
                .bind(id.0)
                .fetch_all(self.reader())
                .await
                .map_err(storage_error)?;
        Ok(ids.into_iter().map(GroupId).collect())
    }
}
