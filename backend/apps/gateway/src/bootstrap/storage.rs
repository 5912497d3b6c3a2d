//! Opening the storage of the configured mode (SPEC.md §1): **production** when
//! `database.url` is set (PostgreSQL for facts, Redis for coordination), **embedded** otherwise
//! (a SQLite file and the in-process coordination under `server.data_dir`, one process).
//! `serve` and every command open it the same way, so they find the same data (decision 0186).

mod data_dir;
mod embedded;
mod ports;
mod production;

use std::sync::Arc;

use crate::config::Config;
use gateway_host::ReadinessProbe;

use super::StartError;

pub use data_dir::{DATABASE_FILE, DataDirLock, LOCK_FILE, MASTER_KEY_FILE, is_served};
pub use ports::{Coordination, Facts};
pub use production::open_postgres;

/// Which of the two ways to run this configuration selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Production,
    Embedded,
}

impl Mode {
    pub fn of(config: &Config) -> Self {
        if config.database.url.is_some() { Self::Production } else { Self::Embedded }
    }
}

/// Who opens the storage: the serving process takes the embedded data directory for itself;
/// commands share it with a running server (SQLite allows that; the server's snapshot
/// reconciliation picks their changes up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Server,
    Command,
}

pub struct Storage {
    pub mode: Mode,
    pub facts: Arc<dyn Facts>,
    pub coordination: Arc<dyn Coordination>,
    /// The coordination's readiness probe (Redis); the in-process coordination needs none.
    pub coordination_probe: Option<Arc<dyn ReadinessProbe>>,
    /// The embedded data directory, held while this process serves.
    pub lock: Option<DataDirLock>,
    /// Dumps, uploads, reads back and restores this mode's database (docs/backups.md).
    pub backup_engine: Arc<gateway_store::backup::S3BackupEngine>,
    /// The embedded mode runs one process: an unfinished job at start is always interrupted.
    pub single_process: bool,
}

impl Storage {
    pub async fn close(&self) {
        self.facts.close().await;
    }
}

/// Opens the storage `config` selects. In the embedded mode this first settles the data
/// directory (created 0700) and the master key (generated on the first start, then read from
/// `master.key`), writing the key into `config` so everything after uses the same one.
pub async fn open(config: &mut Config, role: Role) -> Result<Storage, StartError> {
    match Mode::of(config) {
        Mode::Production => production::open(config).await,
        Mode::Embedded => embedded::open(config, role).await,
    }
}

/// Settles the embedded data directory and master key (no-op in production mode), for code
/// that needs the configuration complete before opening the storage.
pub fn prepare(config: &mut Config) -> Result<(), StartError> {
    if Mode::of(config) == Mode::Embedded {
        data_dir::ensure(&config.server.data_dir)?;
        data_dir::resolve_master_key(config)?;
    }
    Ok(())
}

/// `switchboard migrate`: applies pending migrations and verifies the applied ones.
pub async fn migrate_only(config: &mut Config) -> Result<String, StartError> {
    match Mode::of(config) {
        Mode::Production => production::migrate_only(config).await,
        Mode::Embedded => embedded::migrate_only(config).await,
    }
}

pub fn keyring(config: &Config) -> Result<gateway_store::crypto::Keyring, StartError> {
    use gateway_host::ConfigError;
    let master_key = config.secrets.master_key.as_deref().ok_or_else(|| {
        StartError::Config(ConfigError::invalid(
            "secrets.master_key",
            "is required with a database (generate one with `switchboard master-key`)",
        ))
    })?;
    gateway_store::crypto::Keyring::from_config(master_key, &config.secrets.retired_master_keys)
        .map_err(|e| StartError::Config(ConfigError::invalid("secrets.master_key", &e.to_string())))
}
