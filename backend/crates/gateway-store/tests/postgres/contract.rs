//! The storage contract suite against PostgreSQL (one schema per test).

use async_trait::async_trait;
use gateway_store::crypto::Keyring;
use gateway_store::postgres::PgStore;

use crate::postgres::test_store::TestStore;
use crate::storage_contract::fixtures::Harness;

#[async_trait]
impl Harness for TestStore {
    type Store = PgStore;

    fn store(&self) -> PgStore {
        self.store.clone()
    }

    async fn reopen(&self, keyring: Option<Keyring>) -> anyhow::Result<PgStore> {
        let store = gateway_store::postgres::connect(self.url(), 1).await?;
        Ok(match keyring {
            Some(keyring) => store.with_keyring(keyring),
            None => store,
        })
    }

    async fn close(&self, store: PgStore) {
        store.close().await;
    }

    async fn finish(self) -> anyhow::Result<()> {
        TestStore::finish(self).await
    }
}

crate::storage_contract::storage_contract_suite!(TestStore::new);
