//! [`TranscriptStore`] over one string per transcript: `P:transcript:{<key hex>}` (the key is
//! `SHA-256(client key || 0 || response id)`), `SET … PX <ttl>`; a read is one `GET`.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{CoordinationError, TranscriptKey, TranscriptStore};

use super::RedisCoordination;

#[async_trait]
impl TranscriptStore for RedisCoordination {
    async fn keep_transcript(
        &self,
        key: &TranscriptKey,
        transcript: &[u8],
        ttl: Duration,
    ) -> Result<(), CoordinationError> {
        let mut set = ::redis::cmd("SET");
        set.arg(self.keys.transcript(key)).arg(transcript).arg("PX").arg(duration_millis(ttl).max(1));
        self.connection.query::<()>(&set).await
    }

    async fn transcript(&self, key: &TranscriptKey) -> Result<Option<Vec<u8>>, CoordinationError> {
        let mut get = ::redis::cmd("GET");
        get.arg(self.keys.transcript(key));
        self.connection.query(&get).await
    }
}
