//! The `ops_events` table: redacted runtime events.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::domain::OpsEvent;
use crate::ports::storage_error::StorageError;

#[async_trait]
pub trait OpsEventLog: Send + Sync {
    /// Inserts events in one statement. A reference to an account or request that is not (or no
    /// longer) stored is kept in `details` (`unlinked_account_id` / `unlinked_request_id`)
    /// instead of failing the batch.
    async fn record_ops_events(&self, events: &[OpsEvent]) -> Result<u64, StorageError>;

    /// Deletes at most `limit` events that occurred before `cutoff`, oldest first.
    async fn delete_ops_events_before(&self, cutoff: OffsetDateTime, limit: u32) -> Result<u64, StorageError>;
}
