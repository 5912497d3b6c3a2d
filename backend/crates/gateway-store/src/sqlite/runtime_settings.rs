//! The runtime settings singleton: reading it, and the revision probe.

use std::collections::BTreeMap;

use async_trait::async_trait;
use sqlx::SqliteExecutor;

use gateway_admin::ports::RuntimeSettingsReader;
use gateway_core::domain::{ConfigRevision, RuntimeSettings};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::{closed, u32_of};
use crate::postgres::error_mapping::corrupt;
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::SqliteColumns;

pub(crate) async fn load_runtime_settings<'c>(
    executor: impl SqliteExecutor<'c>,
) -> Result<(ConfigRevision, RuntimeSettings), StorageError> {
    let row = sqlx::query(
        "SELECT config_revision, model_aliases, rotation_strategy, default_account_concurrency, \
         request_interval_ms, refresh_margin_seconds, refresh_concurrency, request_retention_days, \
         ops_event_retention_days FROM runtime_settings WHERE id = 1",
    )
    .fetch_optional(executor)
    .await
    .map_err(storage_error)?
    .ok_or_else(|| corrupt("runtime_settings", "the singleton row is missing"))?;
    let model_aliases: BTreeMap<String, String> =
        serde_json::from_value(row.json("model_aliases")?).map_err(|e| corrupt("runtime_settings.model_aliases", e))?;
    let int = |name: &str| -> Result<u32, StorageError> { u32_of(row.col(name)?, name) };
    let settings = RuntimeSettings {
        model_aliases,
        rotation_strategy: closed(row.col::<&str>("rotation_strategy")?, "runtime_settings.rotation_strategy")?,
        default_account_concurrency: int("default_account_concurrency")?,
        request_interval_ms: int("request_interval_ms")?,
        refresh_margin_seconds: int("refresh_margin_seconds")?,
        refresh_concurrency: int("refresh_concurrency")?,
        request_retention_days: int("request_retention_days")?,
        ops_event_retention_days: int("ops_event_retention_days")?,
    };
    Ok((ConfigRevision(row.col("config_revision")?), settings))
}

pub(crate) async fn current_config_revision<'c>(
    executor: impl SqliteExecutor<'c>,
) -> Result<ConfigRevision, StorageError> {
    let revision: i64 = sqlx::query_scalar("SELECT config_revision FROM runtime_settings WHERE id = 1")
        .fetch_optional(executor)
        .await
        .map_err(storage_error)?
        .ok_or_else(|| corrupt("runtime_settings", "the singleton row is missing"))?;
    Ok(ConfigRevision(revision))
}

#[async_trait]
impl RuntimeSettingsReader for SqliteStore {
    async fn read_runtime_settings(&self) -> Result<(ConfigRevision, RuntimeSettings), StorageError> {
        load_runtime_settings(self.reader()).await
    }
}
