//! [`SnapshotSource`]: the routing configuration read in one read-only transaction, so the
//! revision and the content belong together (PostgreSQL: `REPEATABLE READ`; SQLite: a WAL
//! snapshot on a reader connection, which the single writer's later commits do not change).

use async_trait::async_trait;

use gateway_core::domain::{AccountId, AccountRecord, ConfigRevision};
use gateway_core::ports::{SnapshotFacts, SnapshotSource, StorageError};

use crate::sql::settings::{current_config_revision, load_runtime_settings};
use crate::sql::store::SqlStore;
use crate::sql::{Dialect, Sql, Statement, accounts, client_keys, groups};

/// Makes the transaction a snapshot: a statement in PostgreSQL; SQLite's read transaction is one
/// already (its statement only has to be harmless).
const SNAPSHOT_ISOLATION: Sql = Sql::each("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", "SELECT 1");

#[async_trait]
impl<D: Dialect> SnapshotSource for SqlStore<D> {
    async fn load_snapshot_facts(&self) -> Result<SnapshotFacts, StorageError> {
        let keyring = self.keyring()?;
        let mut tx = self.reader().begin().await.map_err(D::storage_error)?;
        Statement::<D>::new(&SNAPSHOT_ISOLATION).execute(&mut *tx).await?;
        let (config_revision, settings) = load_runtime_settings::<D>(&mut *tx).await?;
        let accounts = accounts::load_all::<D>(&mut *tx, keyring).await?;
        let groups = groups::load_all::<D>(&mut *tx, keyring).await?;
        let client_keys = client_keys::load_all::<D>(&mut *tx).await?;
        tx.commit().await.map_err(D::storage_error)?;
        Ok(SnapshotFacts { config_revision, settings, accounts, groups, client_keys })
    }

    async fn current_config_revision(&self) -> Result<ConfigRevision, StorageError> {
        current_config_revision::<D>(self.reader()).await
    }

    async fn load_account(&self, id: AccountId) -> Result<AccountRecord, StorageError> {
        accounts::load_one::<D>(self.reader(), self.keyring()?, id).await
    }
}
