//! [`SnapshotSource`]: the routing configuration read in one read transaction (a WAL snapshot:
//! the single writer's later commits are not seen), so the revision and the content belong
//! together.

use async_trait::async_trait;

use gateway_core::domain::{AccountId, AccountRecord, ConfigRevision};
use gateway_core::ports::{SnapshotFacts, SnapshotSource, StorageError};

use crate::sqlite::SqliteStore;
use crate::sqlite::accounts::{load_account, load_all_accounts};

use crate::sql::settings::{current_config_revision, load_runtime_settings};
use crate::sqlite::error_mapping::storage_error;

#[async_trait]
impl SnapshotSource for SqliteStore {
    async fn load_snapshot_facts(&self) -> Result<SnapshotFacts, StorageError> {
        let keyring = self.keyring()?;
        let mut tx = self.reader().begin().await.map_err(storage_error)?;
        let (config_revision, settings) = load_runtime_settings::<sqlx::Sqlite>(&mut *tx).await?;
        let accounts = load_all_accounts(&mut *tx, keyring).await?;
        let groups = crate::sql::groups::load_all::<sqlx::Sqlite>(&mut *tx, keyring).await?;
        let client_keys = crate::sql::client_keys::load_all::<sqlx::Sqlite>(&mut *tx).await?;
        tx.commit().await.map_err(storage_error)?;
        Ok(SnapshotFacts { config_revision, settings, accounts, groups, client_keys })
    }

    async fn current_config_revision(&self) -> Result<ConfigRevision, StorageError> {
        current_config_revision::<sqlx::Sqlite>(self.reader()).await
    }

    async fn load_account(&self, id: AccountId) -> Result<AccountRecord, StorageError> {
        load_account(self.reader(), self.keyring()?, id).await
    }
}
