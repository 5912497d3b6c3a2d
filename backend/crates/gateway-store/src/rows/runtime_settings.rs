//! Mapping the `runtime_settings` singleton row, for both dialects.

use std::collections::BTreeMap;

use gateway_core::domain::{ConfigRevision, RuntimeSettings};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::{closed, u32_of};
use crate::postgres::error_mapping::corrupt;
use crate::row_columns::RowColumns;

/// The columns [`settings_from_row`] reads; the same text on both dialects.
pub(crate) const RUNTIME_SETTINGS_SELECT: &str = "SELECT config_revision, model_aliases, rotation_strategy, \
     default_account_concurrency, request_interval_ms, refresh_margin_seconds, refresh_concurrency, \
     request_retention_days, ops_event_retention_days FROM runtime_settings WHERE id = 1";

/// The revision probe; the same text on both dialects.
pub(crate) const CONFIG_REVISION_SELECT: &str = "SELECT config_revision FROM runtime_settings WHERE id = 1";

pub(crate) fn missing_singleton() -> StorageError {
    corrupt("runtime_settings", "the singleton row is missing")
}

pub(crate) fn settings_from_row(row: &impl RowColumns) -> Result<(ConfigRevision, RuntimeSettings), StorageError> {
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

/// `model_aliases` as the JSON document both dialects store.
pub(crate) fn aliases_json(settings: &RuntimeSettings) -> Result<serde_json::Value, StorageError> {
    serde_json::to_value(&settings.model_aliases).map_err(|e| StorageError::Internal(e.to_string()))
}
