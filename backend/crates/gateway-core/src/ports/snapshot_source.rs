//! Loading everything a `RuntimeSnapshot` is compiled from, and the cheap revision probe that
//! periodic reconciliation polls.

use async_trait::async_trait;

use crate::domain::{AccountGroup, AccountId, AccountRecord, ClientKeyRecord, ConfigRevision, RuntimeSettings};
use crate::ports::storage_error::StorageError;

/// One consistent read of the routing configuration: every field comes from the same database
/// snapshot, so `config_revision` describes exactly this content.
#[derive(Debug, Clone)]
pub struct SnapshotFacts {
    pub config_revision: ConfigRevision,
    pub settings: RuntimeSettings,
    /// Every account (enabled or not) with scheduling, credential and quota facts; credentials
    /// decrypted.
    pub accounts: Vec<AccountRecord>,
    /// Every group with its members.
    pub groups: Vec<AccountGroup>,
    /// Every client key with its limits and group scope.
    pub client_keys: Vec<ClientKeyRecord>,
}

#[async_trait]
pub trait SnapshotSource: Send + Sync {
    async fn load_snapshot_facts(&self) -> Result<SnapshotFacts, StorageError>;

    /// One indexed read of the singleton row; reconciliation reloads when it moved.
    async fn current_config_revision(&self) -> Result<ConfigRevision, StorageError>;

    /// One account, for refreshing a snapshot entry after a credential or quota change that does
    /// not bump the global revision.
    async fn load_account(&self, id: AccountId) -> Result<AccountRecord, StorageError>;
}
