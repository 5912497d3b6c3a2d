//! [`SnapshotSource`]: the routing configuration read in one REPEATABLE READ transaction, so the
//! revision and the content belong together.

use async_trait::async_trait;

use gateway_core::domain::{AccountId, AccountRecord, ConfigRevision};
use gateway_core::ports::{SnapshotFacts, SnapshotSource, StorageError};

use crate::postgres::PgStore;
use crate::postgres::accounts::{load_account, load_all_accounts};

use crate::postgres::error_mapping::storage_error;
use crate::sql::settings::{current_config_revision, load_runtime_settings};

#[async_trait]
impl SnapshotSource for PgStore {
    async fn load_snapshot_facts(&self) -> Result<SnapshotFacts, StorageError> {
        let keyring = self.keyring()?;
        let mut tx = self.pool().begin().await.map_err(storage_error)?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await
            .map_err(storage_error)?;
        let (config_revision, settings) = load_runtime_settings::<sqlx::Postgres>(&mut *tx).await?;
        let accounts = load_all_accounts(&mut *tx, keyring).await?;
        let groups = crate::sql::groups::load_all::<sqlx::Postgres>(&mut *tx, keyring).await?;
        let client_keys = crate::sql::client_keys::load_all::<sqlx::Postgres>(&mut *tx).await?;
        tx.commit().await.map_err(storage_error)?;
        Ok(SnapshotFacts { config_revision, settings, accounts, groups, client_keys })
    }

    async fn current_config_revision(&self) -> Result<ConfigRevision, StorageError> {
        current_config_revision::<sqlx::Postgres>(self.pool()).await
    }

    async fn load_account(&self, id: AccountId) -> Result<AccountRecord, StorageError> {
        load_account(self.pool(), self.keyring()?, id).await
    }
}
