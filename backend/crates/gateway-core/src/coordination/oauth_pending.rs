//! OAuth pending flows: the state between "start login" and "complete login".
//!
//! The record is keyed by `SHA-256(provider || 0x00 || flow_binding)` (the binding is the OAuth
//! `state`), holds the owner's fingerprint and an opaque payload — the provider's secrets (PKCE
//! verifier, device ids, installation id) and the re-authorisation target, sealed by the admin
//! use case under a key derived from the binding (`gateway_admin::oauth::FlowSeal`), so the
//! storage holds ciphertext only — and lives 10 min (OpenAI) or 30 min (xAI).
//! Completion claims it atomically: an owner mismatch never deletes, a live claim blocks a
//! second claim, only the claim owner releases the claim, and the claim owner deletes the record
//! after the account transaction commits.

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use sha2::{Digest, Sha256};

use super::affinity::hex;
use super::{CoordinationError, UnixMillis};
use crate::domain::ProviderKind;

/// The pending lifetime of a provider's flow.
pub const fn pending_ttl(provider: ProviderKind) -> Duration {
    match provider {
        ProviderKind::Openai => Duration::from_secs(10 * 60),
        ProviderKind::Xai => Duration::from_secs(30 * 60),
    }
}

/// The flow fingerprint; never the raw `state`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OAuthFlowKey {
    pub provider: ProviderKind,
    pub digest: [u8; 32],
}

impl OAuthFlowKey {
    pub fn derive(provider: ProviderKind, flow_binding: &[u8]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(provider.as_str().as_bytes());
        hasher.update([0]);
        hasher.update(flow_binding);
        Self { provider, digest: hasher.finalize().into() }
    }

    pub fn to_hex(&self) -> String {
        hex(&self.digest)
    }
}

impl fmt::Debug for OAuthFlowKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OAuthFlowKey({}:{})", self.provider, &self.to_hex()[..12])
    }
}

/// Identifies one completion attempt (random per attempt).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClaimId(pub String);

impl ClaimId {
    pub fn random() -> Self {
        Self(uuid::Uuid::new_v4().simple().to_string())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowCreate {
    Created {
        expires_at: UnixMillis,
    },
    /// A flow with this key exists; nothing was changed.
    Exists,
}

#[derive(Clone, PartialEq, Eq)]
pub enum FlowClaim {
    /// This attempt owns the flow until `claim_expires_at`; here is the provider payload.
    Claimed {
        payload: Vec<u8>,
        claim_expires_at: UnixMillis,
    },
    NotFound,
    /// The caller is not the flow's owner; the record is untouched.
    OwnerMismatch,
    /// Another attempt holds a live claim until `until`.
    AlreadyClaimed {
        until: UnixMillis,
    },
}

impl fmt::Debug for FlowClaim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The payload carries a PKCE verifier: never printed.
            Self::Claimed { claim_expires_at, .. } => {
                f.debug_struct("Claimed").field("claim_expires_at", claim_expires_at).finish_non_exhaustive()
            }
            Self::NotFound => f.write_str("NotFound"),
            Self::OwnerMismatch => f.write_str("OwnerMismatch"),
            Self::AlreadyClaimed { until } => f.debug_struct("AlreadyClaimed").field("until", until).finish(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimRelease {
    Released,
    /// The claim is held by another attempt or there is none; unchanged.
    NotClaimOwner,
    NotFound,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowFinish {
    Deleted,
    /// Another attempt holds the claim (or none does); nothing was deleted.
    NotClaimOwner,
    NotFound,
}

#[async_trait]
pub trait OAuthPendingFlows: Send + Sync {
    async fn create_flow(
        &self,
        key: &OAuthFlowKey,
        owner_fingerprint: &str,
        payload: &[u8],
        ttl: Duration,
    ) -> Result<FlowCreate, CoordinationError>;

    async fn claim_flow(
        &self,
        key: &OAuthFlowKey,
        owner_fingerprint: &str,
        claim: &ClaimId,
        claim_ttl: Duration,
    ) -> Result<FlowClaim, CoordinationError>;

    /// Gives the claim back after a failed completion (only by the claim owner).
    async fn release_claim(&self, key: &OAuthFlowKey, claim: &ClaimId) -> Result<ClaimRelease, CoordinationError>;

    /// Deletes the record after the account transaction committed (only by the claim owner).
    async fn finish_flow(&self, key: &OAuthFlowKey, claim: &ClaimId) -> Result<FlowFinish, CoordinationError>;
}
