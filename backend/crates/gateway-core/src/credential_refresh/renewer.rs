//! The provider side of a refresh: exchange the refresh token inside a credential document for a
//! new document. Each OAuth provider implements [`CredentialRenewer`]; scheduling, single-flight
//! and persistence are the refresher's.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::credential_import::ExchangeFailure;
use crate::domain::{CredentialDocument, CredentialState, EgressProxy, ProviderKind};
use crate::fault::Fault;

/// A rotated credential, not yet stored.
#[derive(Debug, Clone)]
pub struct RenewedCredential {
    pub document: CredentialDocument,
    pub access_token_expires_at: Option<OffsetDateTime>,
}

impl RenewedCredential {
    /// `expires_at` in Unix seconds, as credential documents keep it.
    pub fn expiring_at(document: CredentialDocument, expires_at: Option<i64>) -> Self {
        Self { document, access_token_expires_at: expires_at.and_then(|e| OffsetDateTime::from_unix_timestamp(e).ok()) }
    }
}

/// How a provider's refresh-token grant failed: the same three outcomes for every OAuth
/// provider, turned into what the refresher ([`RenewFailure`]) and the import exchange
/// ([`ExchangeFailure`]) need by one mapping each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenRefreshError {
    /// The refresh token can never work again; `code` is the stable reason.
    #[error("refresh refused permanently: {code}")]
    Permanent { code: String },
    /// Network, timeout, 5xx, malformed answer: keep the credential and try later.
    #[error("refresh failed for now: {0}")]
    Transient(String),
    /// An edge in front of the token endpoint answered (a challenge or another page that is
    /// not the endpoint's JSON): about the egress path, not the token; keep it, try later.
    #[error("the token endpoint's edge answered {status}")]
    Challenged { status: u16 },
    /// The credential has no refresh token.
    #[error("the credential has no refresh token")]
    NoRefreshToken,
}

impl TokenRefreshError {
    /// As the refresher sees it; `state_of` names the terminal state of a permanent refusal's
    /// code (`banned` for a deactivated account, else `invalid`).
    pub fn into_renew_failure(self, state_of: impl FnOnce(&str) -> CredentialState) -> RenewFailure {
        match self {
            Self::Permanent { code } => RenewFailure::Permanent { state: state_of(&code), reason: code },
            Self::Transient(message) => RenewFailure::Transient(message),
            Self::Challenged { status } => RenewFailure::Challenged { status },
            Self::NoRefreshToken => RenewFailure::NoRefreshToken,
        }
    }
}

impl From<TokenRefreshError> for ExchangeFailure {
    /// The import report's code: the permanent reason, else `upstream_unavailable` or
    /// `no_refresh_token` (never a message that could carry a token).
    fn from(error: TokenRefreshError) -> Self {
        let code = match error {
            TokenRefreshError::Permanent { code } => code,
            TokenRefreshError::Transient(_) => "upstream_unavailable".to_owned(),
            TokenRefreshError::Challenged { .. } => Fault::TokenEndpointChallenge.as_str().to_owned(),
            TokenRefreshError::NoRefreshToken => "no_refresh_token".to_owned(),
        };
        Self { code }
    }
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
    /// An edge's challenge or page at the token endpoint: keep the credential, retry later.
    #[error("the token endpoint's edge answered {status}")]
    Challenged { status: u16 },
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
    /// again with `current`. `egress` is the account's egress proxy (its own, else its group's,
    /// decision 0241): the token call leaves through it like the account's inference.
    async fn renew(
        &self,
        current: &CredentialDocument,
        egress: Option<&EgressProxy>,
    ) -> Result<RenewedCredential, RenewFailure>;
}
