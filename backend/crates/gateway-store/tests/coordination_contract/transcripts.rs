//! Contract: continuation transcripts are opaque bytes under (client key, response id), read
//! back exactly by their key only, replaced by a later write, and gone after their TTL.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::{TranscriptKey, TranscriptStore};
use gateway_core::domain::ClientKeyId;
use test_support::wait_until;

use super::fixtures::EXPIRY_DEADLINE;

pub async fn transcripts_are_read_back_by_their_key_only<C: TranscriptStore>(port: Arc<C>) -> anyhow::Result<()> {
    let id: &[u8] = b"resp_opaque\x00\xfe id";
    let mine = TranscriptKey::derive(ClientKeyId(1), id);
    let ttl = Duration::from_secs(600);
    ensure!(port.transcript(&mine).await?.is_none(), "nothing kept yet");
    // Every byte value, and large: the adapter must not assume text.
    let bytes: Vec<u8> = (0..=255u8).cycle().take(1 << 20).collect();
    port.keep_transcript(&mine, &bytes, ttl).await?;
    ensure!(port.transcript(&mine).await?.as_deref() == Some(bytes.as_slice()), "read back exactly");
    let theirs = TranscriptKey::derive(ClientKeyId(2), id);
    ensure!(port.transcript(&theirs).await?.is_none(), "another key's id names another record");
    let other_id = TranscriptKey::derive(ClientKeyId(1), b"resp_other");
    ensure!(port.transcript(&other_id).await?.is_none(), "another id of the same key");
    port.keep_transcript(&mine, b"{\"v\":2}", ttl).await?;
    ensure!(port.transcript(&mine).await?.as_deref() == Some(&b"{\"v\":2}"[..]), "a later write replaces it");
    Ok(())
}

pub async fn transcripts_expire<C: TranscriptStore>(port: Arc<C>) -> anyhow::Result<()> {
    let short = TranscriptKey::derive(ClientKeyId(1), b"resp_short");
    let long = TranscriptKey::derive(ClientKeyId(1), b"resp_long");
    port.keep_transcript(&short, b"short", Duration::from_millis(200)).await?;
    port.keep_transcript(&long, b"long", Duration::from_secs(600)).await?;
    wait_until("the transcript to expire", EXPIRY_DEADLINE, || async {
        matches!(port.transcript(&short).await, Ok(None)).then_some(())
    })
    .await?;
    ensure!(port.transcript(&long).await?.as_deref() == Some(&b"long"[..]), "each lives its own TTL");
    Ok(())
}
