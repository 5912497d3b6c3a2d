//! The coordination contract against the in-process adapter (embedded mode).

use std::sync::Arc;

use gateway_store::memory::MemoryCoordination;

async fn fresh(_test: &str) -> anyhow::Result<Arc<MemoryCoordination>> {
    Ok(Arc::new(MemoryCoordination::new()))
}

crate::coordination_contract::coordination_contract_suite!(fresh);

mod transcripts {
    //! The in-process transcript store on tokio's clock: the xAI TTL (4 hours) with paused
    //! time, and the entry cap that bounds its memory.

    use std::time::Duration;

    use gateway_core::coordination::{TranscriptKey, TranscriptStore};
    use gateway_core::domain::ClientKeyId;
    use gateway_store::memory::{MemoryCoordination, TRANSCRIPT_ENTRIES};

    const FOUR_HOURS: Duration = Duration::from_secs(4 * 3600);

    #[tokio::test(start_paused = true)]
    async fn a_transcript_lives_exactly_its_ttl() -> anyhow::Result<()> {
        let store = MemoryCoordination::new();
        let key = TranscriptKey::derive(ClientKeyId(7), b"resp_1");
        store.keep_transcript(&key, b"turn", FOUR_HOURS).await?;
        tokio::time::advance(FOUR_HOURS - Duration::from_secs(1)).await;
        anyhow::ensure!(store.transcript(&key).await?.as_deref() == Some(&b"turn"[..]), "alive before its end");
        tokio::time::advance(Duration::from_secs(1)).await;
        anyhow::ensure!(store.transcript(&key).await?.is_none(), "gone at its end");
        Ok(())
    }

    #[tokio::test(start_paused = true)]
    async fn the_oldest_transcript_is_evicted_past_the_cap() -> anyhow::Result<()> {
        let store = MemoryCoordination::new();
        let key = |n: usize| TranscriptKey::derive(ClientKeyId(1), format!("resp_{n}").as_bytes());
        for n in 0..=TRANSCRIPT_ENTRIES {
            store.keep_transcript(&key(n), b"x", FOUR_HOURS).await?;
            tokio::time::advance(Duration::from_millis(1)).await;
        }
        anyhow::ensure!(store.transcript(&key(0)).await?.is_none(), "the oldest write is evicted");
        anyhow::ensure!(store.transcript(&key(1)).await?.is_some(), "the rest stay");
        anyhow::ensure!(store.transcript(&key(TRANSCRIPT_ENTRIES)).await?.is_some(), "the newest stays");
        Ok(())
    }
}
