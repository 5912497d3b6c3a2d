//! The provider side of a refresh: exchange the refresh token inside a credential document for a
//! new document. Each OAuth provider implements [`CredentialRenewer`]; scheduling, single-flight
//! and persistence are the refresher's.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::domain::{CredentialDocument, CredentialState, ProviderKind};

/// A rotated credential, not yet stored.
#[derive(Debug, Clone)]
pub struct RenewedCredential {
    pub document: CredentialDocument,
    pub access_token_expires_at: Option<OffsetDateTime>,
}

/// Why a renewal failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenewFailure {
    /// The upstream refused the refresh token for good (`invalid_grant`, reused, revoked,
    /// expired, banned). `state` is `invalid` or `banned`; `reason` a stable snake_case code.
    #[error("refresh refused permanently: {reason}")]
    Permanent { state: CredentialState, reason: String },
    /// Network, timeout, 5xx, rate limit, malformed answer: keep the credential, retry later.
    #[error("refresh failed for now: {0}")]
    Transient(String),
    /// The document carries no refresh token (an access-token-only import): it works until it
    /// expires and cannot be renewed.
    #[error("the credential has no refresh token")]
    NoRefreshToken,
    /// The document cannot be read by this provider.
    #[error("the credential document is malformed")]
    Malformed,
}

#[async_trait]
pub trait CredentialRenewer: Send + Sync {
    fn provider(&self) -> ProviderKind;

    /// Spends the refresh token in `current`. Refresh tokens are single-use: on success the
    /// caller must store the returned document before anything uses it, and must never call this
    /// again with `current`.
    async fn renew(&self, current: &CredentialDocument) -> Result<RenewedCredential, RenewFailure>;
}
