//! [`TranscriptStore`] in process: a bounded [`ExpiringMap`] on tokio's clock (so expiry is
//! testable with paused time). Memory is bounded by the entry cap: at most
//! [`TRANSCRIPT_ENTRIES`] transcripts (the oldest write is evicted first), each as large as the
//! provider allows (8 MiB for xAI).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::{CoordinationError, TranscriptKey, TranscriptStore};
use gateway_core::expiring_map::ExpiringMap;
use tokio::time::Instant;

use super::MemoryCoordination;

/// Transcripts kept at once in the embedded mode.
pub const TRANSCRIPT_ENTRIES: usize = 256;
/// The longest any transcript lives, whatever TTL it was written with.
const LONGEST_TTL: Duration = Duration::from_secs(24 * 3600);

/// One transcript and the end of its own TTL.
pub(super) struct Kept {
    bytes: Vec<u8>,
    expires_at: Instant,
}

pub(super) type Transcripts = ExpiringMap<[u8; 32], Arc<Kept>>;

pub(super) fn transcripts() -> Transcripts {
    ExpiringMap::new(TRANSCRIPT_ENTRIES, LONGEST_TTL)
}

#[async_trait]
impl TranscriptStore for MemoryCoordination {
    async fn keep_transcript(
        &self,
        key: &TranscriptKey,
        transcript: &[u8],
        ttl: Duration,
    ) -> Result<(), CoordinationError> {
        let expires_at = Instant::now() + ttl.min(LONGEST_TTL);
        self.transcripts.insert(key.digest, Arc::new(Kept { bytes: transcript.to_vec(), expires_at }));
        Ok(())
    }

    async fn transcript(&self, key: &TranscriptKey) -> Result<Option<Vec<u8>>, CoordinationError> {
        let kept = self.transcripts.get(&key.digest);
        Ok(kept.filter(|kept| kept.expires_at > Instant::now()).map(|kept| kept.bytes.clone()))
    }
}
