//! Reading the audit trail (rows are written only by `AdminTransaction::commit`).

use async_trait::async_trait;

use gateway_core::ports::StorageError;

use crate::audit::AuditEvent;

#[async_trait]
pub trait AuditTrail: Send + Sync {
    /// Newest first; `before_id` pages backwards.
    async fn list_audit_events(&self, before_id: Option<i64>, limit: u32) -> Result<Vec<AuditEvent>, StorageError>;

    /// Walks the chain in id order and returns the id of the first row whose `prev_hash` or
    /// `row_hash` does not match, or `None` when the chain is intact.
    async fn verify_audit_chain(&self) -> Result<Option<i64>, StorageError>;
}
