//! Reading the runtime settings singleton.

use async_trait::async_trait;

use gateway_core::domain::{ConfigRevision, RuntimeSettings};
use gateway_core::ports::StorageError;

#[async_trait]
pub trait RuntimeSettingsReader: Send + Sync {
    async fn read_runtime_settings(&self) -> Result<(ConfigRevision, RuntimeSettings), StorageError>;
}
