//! Opening PostgreSQL (with the secrets keyring, migrated and verified) and Redis.

use std::sync::Arc;

use gateway_host::{Config, ConfigError};
use gateway_store::crypto::Keyring;
use gateway_store::postgres::{self, PgStore};
use gateway_store::redis::{RedisCoordination, RedisSettings};

use super::StartError;

/// The production storage: PostgreSQL for facts, Redis for coordination.
pub struct Storage {
    pub postgres: Arc<PgStore>,
    pub coordination: Arc<RedisCoordination>,
}

impl Storage {
    pub async fn close(&self) {
        self.postgres.close().await;
    }
}

fn database_url(config: &Config) -> Result<&str, StartError> {
    config.database.url.as_deref().ok_or_else(|| {
        StartError::Config(ConfigError::invalid(
            "database.url",
            "is required: the embedded mode (SQLite, no services) is not built yet; scripts/run sets up PostgreSQL and Redis",
        ))
    })
}

async fn connect_postgres(config: &Config) -> Result<PgStore, StartError> {
    postgres::connect(database_url(config)?, config.database.max_connections)
        .await
        .map_err(|e| StartError::Storage(e.to_string()))
}

fn describe(report: &postgres::MigrationReport) -> String {
    if report.applied.is_empty() {
        format!("migrations up to date ({} verified)", report.verified)
    } else {
        format!("applied {} ({} verified)", report.applied.join(", "), report.verified)
    }
}

/// `switchboard migrate`.
pub async fn migrate_only(config: &Config) -> Result<String, StartError> {
    let store = connect_postgres(config).await?;
    let report = store.migrate().await.map_err(|e| StartError::Storage(e.to_string()))?;
    store.close().await;
    Ok(describe(&report))
}

/// PostgreSQL with the secrets keyring, migrated and verified (commands and `serve`).
pub async fn open_postgres(config: &Config) -> Result<Arc<PgStore>, StartError> {
    database_url(config)?;
    let master_key = config.secrets.master_key.as_deref().ok_or_else(|| {
        StartError::Config(ConfigError::invalid(
            "secrets.master_key",
            "is required with a database (generate one with `switchboard master-key`)",
        ))
    })?;
    let keyring = Keyring::from_config(master_key, &config.secrets.retired_master_keys)
        .map_err(|e| StartError::Config(ConfigError::invalid("secrets.master_key", &e.to_string())))?;
    let store = connect_postgres(config).await?.with_keyring(keyring);
    let report = store.migrate().await.map_err(|e| StartError::Storage(e.to_string()))?;
    tracing::info!(report = %describe(&report), "database migrations verified");
    Ok(Arc::new(store))
}

pub async fn open(config: &Config) -> Result<Storage, StartError> {
    let postgres = open_postgres(config).await?;
    let redis_url =
        config.redis.url.clone().ok_or_else(|| {
            StartError::Config(ConfigError::invalid("redis.url", "is required when database.url is set"))
        })?;
    let coordination = RedisCoordination::new(RedisSettings::new(redis_url, config.redis.key_prefix.clone()))
        .map_err(|e| StartError::Config(ConfigError::invalid("redis.url", &e.to_string())))?;
    Ok(Storage { postgres, coordination: Arc::new(coordination) })
}
