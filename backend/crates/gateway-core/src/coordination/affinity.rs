//! Session affinity: explicit client signals, validated and digested per tenant, bound to an
//! account while it stays healthy.
//!
//! The binding itself is read, created and (on failover) moved inside
//! [`super::RequestSlots::acquire`]; this port exposes the same binding outside the hot path.

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use sha2::{Digest, Sha256};

use super::CoordinationError;
use crate::domain::{AccountId, ClientKeyId, ProviderKind};

/// Longest accepted signal, in bytes after trimming.
pub const MAX_SIGNAL_BYTES: usize = 512;

/// Where a session signal came from (SPEC §5: explicit signals only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignalSource {
    /// `session_id` / `Session-Id` request header.
    SessionHeader,
    /// Top-level `prompt_cache_key`.
    PromptCacheKey,
    /// Top-level `conversation_id`.
    ConversationId,
}

impl SignalSource {
    const fn as_str(self) -> &'static str {
        match self {
            Self::SessionHeader => "session_id",
            Self::PromptCacheKey => "prompt_cache_key",
            Self::ConversationId => "conversation_id",
        }
    }
}

/// Why a raw signal is not usable (the request simply has no affinity then).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignalRejected {
    #[error("session signal is empty")]
    Empty,
    #[error("session signal is longer than {MAX_SIGNAL_BYTES} bytes")]
    TooLong,
    #[error("session signal is not valid UTF-8")]
    NotUtf8,
    #[error("session signal contains a control character")]
    ControlCharacter,
}

/// A validated signal: trimmed, 1..=512 bytes, valid UTF-8, no control characters.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionSignal {
    source: SignalSource,
    value: String,
}

impl fmt::Debug for SessionSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The value may be user-chosen text; only its size is printed.
        f.debug_struct("SessionSignal").field("source", &self.source).field("bytes", &self.value.len()).finish()
    }
}

impl SessionSignal {
    /// Validates raw header/field bytes.
    pub fn parse(source: SignalSource, raw: &[u8]) -> Result<Self, SignalRejected> {
        let text = std::str::from_utf8(raw).map_err(|_| SignalRejected::NotUtf8)?;
        let value = text.trim();
        if value.is_empty() {
            return Err(SignalRejected::Empty);
        }
        if value.len() > MAX_SIGNAL_BYTES {
            return Err(SignalRejected::TooLong);
        }
        if value.chars().any(char::is_control) {
            return Err(SignalRejected::ControlCharacter);
        }
        Ok(Self { source, value: value.to_owned() })
    }

    pub fn source(&self) -> SignalSource {
        self.source
    }

    /// The tenant-scoped digest: the same signal from another client key or for another
    /// provider never meets this binding.
    pub fn key(&self, client_key: ClientKeyId, provider: ProviderKind) -> AffinityKey {
        let mut hasher = Sha256::new();
        hasher.update(b"switchboard.affinity.v1\0");
        hasher.update(client_key.0.to_be_bytes());
        hasher.update(provider.as_str().as_bytes());
        hasher.update([0]);
        hasher.update(self.source.as_str().as_bytes());
        hasher.update([0]);
        hasher.update(self.value.as_bytes());
        AffinityKey(hasher.finalize().into())
    }
}

/// SHA-256 digest naming one session binding.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct AffinityKey(pub [u8; 32]);

impl AffinityKey {
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }
}

impl fmt::Debug for AffinityKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AffinityKey({})", &self.to_hex()[..12])
    }
}

/// Lower-case hex of bytes (key names of the coordination store).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

/// The result of a compare-and-swap rebind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RebindOutcome {
    /// The binding pointed at `from` and now points at the new account.
    Rebound,
    /// The binding points at another account (someone rebound first); unchanged.
    Moved { current: AccountId },
    /// No binding exists (expired); nothing was created.
    Missing,
}

/// Session bindings outside the hot path (diagnostics, explicit failover, tests).
#[async_trait]
pub trait SessionAffinity: Send + Sync {
    /// The bound account, if any (does not renew).
    async fn binding(&self, key: &AffinityKey) -> Result<Option<AccountId>, CoordinationError>;

    /// Binds `account` only if no binding exists; returns the binding in force afterwards.
    async fn bind_if_absent(
        &self,
        key: &AffinityKey,
        account: AccountId,
        idle_ttl: Duration,
    ) -> Result<AccountId, CoordinationError>;

    /// Moves the binding to `to` only if it still points at `from`.
    async fn rebind(
        &self,
        key: &AffinityKey,
        from: AccountId,
        to: AccountId,
        idle_ttl: Duration,
    ) -> Result<RebindOutcome, CoordinationError>;

    async fn forget(&self, key: &AffinityKey) -> Result<(), CoordinationError>;
}
