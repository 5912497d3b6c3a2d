//! The runtime settings singleton: reading it, and the revision probe.

use async_trait::async_trait;
use sqlx::PgExecutor;

use gateway_admin::ports::RuntimeSettingsReader;
use gateway_core::domain::{ConfigRevision, RuntimeSettings};
use gateway_core::ports::StorageError;

use crate::postgres::PgStore;
use crate::postgres::error_mapping::storage_error;
use crate::rows::runtime_settings::{
    CONFIG_REVISION_SELECT, RUNTIME_SETTINGS_SELECT, missing_singleton, settings_from_row,
};

pub(crate) async fn load_runtime_settings<'c>(
    executor: impl PgExecutor<'c>,
) -> Result<(ConfigRevision, RuntimeSettings), StorageError> {
    let row = sqlx::query(RUNTIME_SETTINGS_SELECT)
        .fetch_optional(executor)
        .await
        .map_err(storage_error)?
        .ok_or_else(missing_singleton)?;
    settings_from_row(&row)
}

pub(crate) async fn current_config_revision<'c>(executor: impl PgExecutor<'c>) -> Result<ConfigRevision, StorageError> {
    let revision: i64 = sqlx::query_scalar(CONFIG_REVISION_SELECT)
        .fetch_optional(executor)
        .await
        .map_err(storage_error)?
        .ok_or_else(missing_singleton)?;
    Ok(ConfigRevision(revision))
}

#[async_trait]
impl RuntimeSettingsReader for PgStore {
    async fn read_runtime_settings(&self) -> Result<(ConfigRevision, RuntimeSettings), StorageError> {
        load_runtime_settings(self.pool()).await
    }
}
