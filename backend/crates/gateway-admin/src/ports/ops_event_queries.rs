//! Reading ops events for the admin views and the live stream.

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_core::domain::{AccountId, OpsEvent, OpsLevel, RequestId};
use gateway_core::ports::StorageError;

/// `None` = no restriction; `level` keeps events at that level or above; `kind` matches a
/// prefix (`credential.` matches `credential.refresh_failed`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpsEventFilter {
    pub from: Option<OffsetDateTime>,
    pub to: Option<OffsetDateTime>,
    pub level: Option<OpsLevel>,
    pub kind: Option<String>,
    pub account: Option<AccountId>,
    pub request: Option<RequestId>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredOpsEvent {
    pub id: i64,
    pub event: OpsEvent,
}

#[async_trait]
pub trait OpsEventQueries: Send + Sync {
    /// Newest first, ids below `before_id` when given.
    async fn list_ops_events(
        &self,
        filter: &OpsEventFilter,
        before_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<StoredOpsEvent>, StorageError>;
    /// Oldest first, ids above `after_id` (the live stream's tail).
    async fn ops_events_after(&self, after_id: i64, limit: u32) -> Result<Vec<StoredOpsEvent>, StorageError>;
    async fn latest_ops_event_id(&self) -> Result<i64, StorageError>;
}
