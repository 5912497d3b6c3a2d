//! Embedded storage: the SQLite file `switchboard.sqlite` and the in-process coordination,
//! under the data directory. One serving process per directory (the lock); commands open the
//! same file beside it.

use std::sync::Arc;

use gateway_host::{Config, ConfigError};
use gateway_store::memory::MemoryCoordination;

use super::{Facts, Mode, Role, Storage, data_dir};
use crate::bootstrap::StartError;

pub async fn open(config: &mut Config, role: Role) -> Result<Storage, StartError> {
    let dir = config.server.data_dir.clone();
    data_dir::ensure(&dir)?;
    let lock = match role {
        Role::Server => Some(data_dir::lock(&dir)?),
        Role::Command => None,
    };
    data_dir::resolve_master_key(config)?;
    let facts = open_sqlite(config).await?;
    Ok(Storage {
        mode: Mode::Embedded,
        facts,
        coordination: Arc::new(MemoryCoordination::new()),
        coordination_probe: None,
        postgres: None,
        lock,
    })
}

/// `switchboard migrate` in the embedded mode.
pub async fn migrate_only(config: &mut Config) -> Result<String, StartError> {
    data_dir::ensure(&config.server.data_dir)?;
    data_dir::resolve_master_key(config)?;
    let facts = open_sqlite(config).await?;
    facts.close().await;
    Ok("embedded store migrated".to_owned())
}

async fn open_sqlite(config: &Config) -> Result<Arc<dyn Facts>, StartError> {
    let _ = config;
    Err(StartError::Config(ConfigError::invalid(
        "database.url",
        "is not set, which selects the embedded mode (SQLite, no services): not built yet in this build; \
         set database.url and redis.url for the production mode",
    )))
}
