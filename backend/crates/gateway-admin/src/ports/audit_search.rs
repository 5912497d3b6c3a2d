//! Filtered reading of the audit trail.

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_core::ports::StorageError;

use crate::audit::AuditEvent;

/// `None` = no restriction; `action` matches a prefix (`client_key.` matches all key actions).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    pub from: Option<OffsetDateTime>,
    pub to: Option<OffsetDateTime>,
    /// Actor name, exact (case-insensitive).
    pub actor: Option<String>,
    pub action: Option<String>,
    pub target_kind: Option<String>,
    pub target_id: Option<String>,
}

#[async_trait]
pub trait AuditSearch: Send + Sync {
    /// Newest first, ids below `before_id` when given.
    async fn search_audit(
        &self,
        filter: &AuditFilter,
        before_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<AuditEvent>, StorageError>;
    async fn get_audit_event(&self, id: i64) -> Result<AuditEvent, StorageError>;
}
