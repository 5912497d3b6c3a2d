//! Production storage: PostgreSQL (with the secrets keyring, migrated and verified) and Redis.

use std::sync::Arc;

use crate::config::Config;
use async_trait::async_trait;
use gateway_host::{ConfigError, ReadinessProbe};
use gateway_store::postgres::{self, PgStore};
use gateway_store::redis::{RedisCoordination, RedisSettings};

use super::{Mode, Storage, keyring};
use crate::bootstrap::StartError;

fn database_url(config: &Config) -> Result<&str, StartError> {
    config
        .database
        .url
        .as_deref()
        .ok_or_else(|| StartError::Config(ConfigError::invalid("database.url", "is required for the production mode")))
}

async fn connect_postgres(config: &Config) -> Result<PgStore, StartError> {
    postgres::connect(database_url(config)?, config.database.max_connections)
        .await
        .map_err(|e| StartError::Storage(e.to_string()))
}

pub fn describe(report: &postgres::MigrationReport) -> String {
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

/// PostgreSQL with the secrets keyring, migrated and verified.
pub async fn open_postgres(config: &Config) -> Result<Arc<PgStore>, StartError> {
    database_url(config)?;
    let keyring = keyring(config)?;
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
    let coordination = Arc::new(
        RedisCoordination::new(RedisSettings::new(redis_url, config.redis.key_prefix.clone()))
            .map_err(|e| StartError::Config(ConfigError::invalid("redis.url", &e.to_string())))?,
    );
    let source = gateway_store::backup::PostgresSource::new(database_url(config)?, None)
        .map_err(|e| StartError::Config(ConfigError::invalid("database.url", &e.message)))?;
    Ok(Storage {
        mode: Mode::Production,
        facts: postgres,
        backup_engine: Arc::new(gateway_store::backup::S3BackupEngine::postgres(source)),
        single_process: false,
        coordination: coordination.clone(),
        coordination_probe: Some(Arc::new(RedisProbe(coordination))),
        lock: None,
    })
}

/// The replica cannot serve without Redis (coordination fails closed): required.
struct RedisProbe(Arc<RedisCoordination>);

#[async_trait]
impl ReadinessProbe for RedisProbe {
    fn name(&self) -> &str {
        "redis"
    }

    async fn check(&self) -> Result<(), String> {
        self.0.ping().await.map_err(|e| e.to_string())
    }
}
