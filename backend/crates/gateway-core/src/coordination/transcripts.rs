//! Continuation transcripts: what a provider that replays conversations (xAI, PROTOCOL H.3)
//! keeps of a completed response so a later `previous_response_id` can be continued on any
//! account — opaque bytes under (client key, response id), each living a given TTL.
//!
//! The record is keyed by `SHA-256(client key || 0x00 || response id)`: another key's response
//! id names another record, so a transcript is readable only by the key that created it and
//! another key's id is indistinguishable from an unknown one. What the bytes hold, how large
//! they may be and how long they live is the provider's policy; the adapters only store them.
//! Transcripts hold user content: adapters never log them.

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use sha2::{Digest, Sha256};

use super::CoordinationError;
use super::affinity::hex;
use crate::domain::ClientKeyId;

/// The record's fingerprint; never the raw response id.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TranscriptKey {
    pub digest: [u8; 32],
}

impl TranscriptKey {
    pub fn derive(client_key: ClientKeyId, response_id: &[u8]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(client_key.0.to_be_bytes());
        hasher.update([0]);
        hasher.update(response_id);
        Self { digest: hasher.finalize().into() }
    }

    pub fn to_hex(&self) -> String {
        hex(&self.digest)
    }
}

impl fmt::Debug for TranscriptKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TranscriptKey({})", &self.to_hex()[..12])
    }
}

#[async_trait]
pub trait TranscriptStore: Send + Sync {
    /// Keeps `transcript` under `key` for `ttl`, replacing an earlier one.
    async fn keep_transcript(
        &self,
        key: &TranscriptKey,
        transcript: &[u8],
        ttl: Duration,
    ) -> Result<(), CoordinationError>;

    /// The live transcript under `key`, if any.
    async fn transcript(&self, key: &TranscriptKey) -> Result<Option<Vec<u8>>, CoordinationError>;
}
