//! Quota fact writes, fenced by `quota_revision`.

use async_trait::async_trait;

use crate::domain::{AccountId, QuotaFacts, QuotaRevision};
use crate::ports::storage_error::StorageError;

#[async_trait]
pub trait QuotaStore: Send + Sync {
    /// Writes the quota facts if the stored revision equals `expected` and the stored
    /// observation is not newer than `facts.observed_at`; bumps and returns the revision.
    /// A lost race or an older observation is `StorageError::RevisionMismatch`.
    async fn write_quota(
        &self,
        account: AccountId,
        expected: QuotaRevision,
        facts: QuotaFacts,
    ) -> Result<QuotaRevision, StorageError>;
}
