//! Credential reads and compare-and-swap writes (refresh, re-authorisation).
//!
//! Writes never touch scheduling facts. A write succeeds only when the stored
//! `credential_revision` equals the expected one; otherwise `StorageError::RevisionMismatch`.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::domain::{
    AccountId, AccountProfile, CredentialDocument, CredentialFacts, CredentialRevision, ProviderKind, StoredCredential,
};
use crate::ports::storage_error::StorageError;

/// A new credential document and the facts that go with it.
#[derive(Debug, Clone)]
pub struct CredentialWrite {
    pub document: CredentialDocument,
    pub facts: CredentialFacts,
    /// `Some` replaces e-mail and plan type (as read from fresh claims); `None` keeps them.
    pub profile: Option<AccountProfile>,
}

/// An account whose credential should be refreshed now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshDue {
    pub account_id: AccountId,
    pub provider: ProviderKind,
    pub credential_revision: CredentialRevision,
    pub next_refresh_at: OffsetDateTime,
}

#[async_trait]
pub trait CredentialStore: Send + Sync {
    async fn read_credential(&self, account: AccountId) -> Result<StoredCredential, StorageError>;

    /// Replaces the document and facts; bumps and returns the new revision.
    async fn write_credential(
        &self,
        account: AccountId,
        expected: CredentialRevision,
        write: CredentialWrite,
    ) -> Result<CredentialRevision, StorageError>;

    /// Replaces only the credential facts (state, reason, expiry, next refresh, failure count),
    /// fenced by the revision but without bumping it: the document did not change.
    async fn write_credential_facts(
        &self,
        account: AccountId,
        expected: CredentialRevision,
        facts: CredentialFacts,
    ) -> Result<(), StorageError>;

    /// Accounts with `next_refresh_at <= now`, earliest first, at most `limit`.
    async fn due_for_refresh(&self, now: OffsetDateTime, limit: u32) -> Result<Vec<RefreshDue>, StorageError>;
}
