//! A migrated SQLite store in its own temporary directory, plus a raw connection standing in for
//! the `sqlite3` shell.

use std::path::{Path, PathBuf};

use gateway_store::crypto::{Keyring, MasterKey};
use gateway_store::sqlite::SqliteStore;
use secrecy::ExposeSecret;
use sqlx::SqlitePool;

pub struct SqliteTestStore {
    pub store: SqliteStore,
    /// The `ID:BASE64` of the current key `k1`.
    pub key_config: String,
    dir: PathBuf,
}

impl SqliteTestStore {
    /// A fresh database, migrated, with a keyring whose current key is `k1`.
    pub async fn new() -> anyhow::Result<Self> {
        let dir = std::env::temp_dir().join(format!("switchboard-sqlite-test-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir)?;
        let key = MasterKey::generate("k1")?;
        let key_config = key.to_config_value().expose_secret().to_owned();
        let keyring = Keyring::from_config(&key_config, &[])?;
        let store = gateway_store::sqlite::open(&dir.join("switchboard.sqlite3"), 4).await?.with_keyring(keyring);
        store.migrate().await?;
        Ok(Self { store, key_config, dir })
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join("switchboard.sqlite3")
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A raw read-write pool on the same file.
    pub async fn raw(&self) -> anyhow::Result<SqlitePool> {
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(self.path()).foreign_keys(true);
        Ok(SqlitePool::connect_with(options).await?)
    }

    pub async fn finish(self) -> anyhow::Result<()> {
        self.store.close().await;
        std::fs::remove_dir_all(&self.dir)?;
        Ok(())
    }
}
