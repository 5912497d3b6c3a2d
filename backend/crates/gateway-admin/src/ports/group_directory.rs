//! Reading account groups.

use async_trait::async_trait;

use gateway_core::domain::{AccountGroup, GroupId};
use gateway_core::ports::StorageError;

#[async_trait]
pub trait GroupDirectory: Send + Sync {
    /// Every group with its members, ascending id.
    async fn list_groups(&self) -> Result<Vec<AccountGroup>, StorageError>;
    async fn get_group(&self, id: GroupId) -> Result<AccountGroup, StorageError>;
}
