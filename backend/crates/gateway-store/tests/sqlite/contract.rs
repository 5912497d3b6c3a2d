//! The storage contract suite against SQLite (one database file per test).

use async_trait::async_trait;
use gateway_store::crypto::Keyring;
use gateway_store::sqlite::SqliteStore;

use crate::sqlite::test_store::SqliteTestStore;
use crate::storage_contract::fixtures::Harness;

#[async_trait]
impl Harness for SqliteTestStore {
    type Store = SqliteStore;

    fn store(&self) -> SqliteStore {
        self.store.clone()
    }

    async fn reopen(&self, keyring: Option<Keyring>) -> anyhow::Result<SqliteStore> {
        let store = gateway_store::sqlite::open(&self.path(), 1).await?;
        Ok(match keyring {
            Some(keyring) => store.with_keyring(keyring),
            None => store,
        })
    }

    async fn close(&self, store: SqliteStore) {
        store.close().await;
    }

    async fn finish(self) -> anyhow::Result<()> {
        SqliteTestStore::finish(self).await
    }
}

crate::storage_contract::storage_contract_suite!(SqliteTestStore::new);
