//! Embedded storage: the SQLite file `switchboard.sqlite` and the in-process coordination,
//! under the data directory. One serving process per directory (the lock); commands open the
//! same file beside it.

use std::sync::Arc;

use crate::config::Config;
use gateway_store::memory::MemoryCoordination;
use gateway_store::sqlite::{self, SqliteStore};

use super::production::describe;
use super::{DATABASE_FILE, Mode, Role, Storage, data_dir, keyring};
use crate::bootstrap::StartError;

/// Reader connections of the SQLite store (writes go through one connection).
const MAX_READERS: u32 = 8;

pub async fn open(config: &mut Config, role: Role) -> Result<Storage, StartError> {
    let dir = config.server.data_dir.clone();
    data_dir::ensure(&dir)?;
    let lock = match role {
        Role::Server => Some(data_dir::lock(&dir)?),
        Role::Command => None,
    };
    data_dir::resolve_master_key(config)?;
    let facts = open_sqlite(config).await?;
    let source = gateway_store::backup::SqliteSource::new(facts.reader().clone(), dir.join("backup-staging"));
    Ok(Storage {
        mode: Mode::Embedded,
        backup_engine: Arc::new(gateway_store::backup::S3BackupEngine::sqlite(source)),
        single_process: true,
        facts,
        coordination: Arc::new(MemoryCoordination::new()),
        coordination_probe: None,
        lock,
    })
}

/// `switchboard migrate` in the embedded mode.
pub async fn migrate_only(config: &mut Config) -> Result<String, StartError> {
    data_dir::ensure(&config.server.data_dir)?;
    data_dir::resolve_master_key(config)?;
    let store = connect(config).await?;
    let report = store.migrate().await.map_err(|e| StartError::Storage(e.to_string()))?;
    store.close().await;
    Ok(describe(&report))
}

async fn connect(config: &Config) -> Result<SqliteStore, StartError> {
    let path = config.server.data_dir.join(DATABASE_FILE);
    let readers = config.database.max_connections.clamp(1, MAX_READERS);
    let store = sqlite::open(&path, readers).await.map_err(|e| StartError::Storage(e.to_string()))?;
    Ok(store.with_keyring(keyring(config)?))
}

/// The SQLite store with the secrets keyring, migrated and verified.
async fn open_sqlite(config: &Config) -> Result<Arc<SqliteStore>, StartError> {
    let store = connect(config).await?;
    let report = store.migrate().await.map_err(|e| StartError::Storage(e.to_string()))?;
    tracing::info!(report = %describe(&report), "embedded store migrations verified");
    Ok(Arc::new(store))
}
