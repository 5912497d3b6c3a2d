//! Reading accounts for the admin views and export.

use async_trait::async_trait;

use gateway_core::domain::{AccountId, AccountRecord, GroupId};
use gateway_core::ports::StorageError;

#[async_trait]
pub trait AccountDirectory: Send + Sync {
    /// Every account, ascending id, credentials decrypted (for export).
    async fn list_accounts(&self) -> Result<Vec<AccountRecord>, StorageError>;
    async fn get_account(&self, id: AccountId) -> Result<AccountRecord, StorageError>;
    /// The groups the account belongs to, ascending.
    async fn account_groups(&self, id: AccountId) -> Result<Vec<GroupId>, StorageError>;
}
