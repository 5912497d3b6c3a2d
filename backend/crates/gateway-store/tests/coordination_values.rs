//! Pure values and helpers of `gateway_core::coordination` that the adapters rely on: signal
//! validation and tenant-scoped digests, flow keys, error kinds, the period helper.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::ensure;
use async_trait::async_trait;
use gateway_core::coordination::leader_lease::PeriodClaim;
use gateway_core::coordination::{
    CoordinationError, CoordinationErrorKind, FenceToken, Lease, LeaseStatus, Leases, OAuthFlowKey, PeriodicLeader,
    ReplicaId, SessionSignal, SignalRejected, SignalSource,
};
use gateway_core::domain::{ClientKeyId, ProviderKind};

#[test]
fn session_signals_are_trimmed_bounded_utf8_without_controls() -> anyhow::Result<()> {
    let source = SignalSource::SessionHeader;
    let trimmed = SessionSignal::parse(source, b"  abc  ")?;
    ensure!(trimmed == SessionSignal::parse(source, b"abc")?, "trimmed before use");
    ensure!(SessionSignal::parse(source, b"   ") == Err(SignalRejected::Empty));
    ensure!(SessionSignal::parse(source, &[b'a'; 513]) == Err(SignalRejected::TooLong));
    ensure!(SessionSignal::parse(source, &[b'a'; 512]).is_ok(), "512 bytes is the limit");
    ensure!(SessionSignal::parse(source, b"\xff\xfe") == Err(SignalRejected::NotUtf8));
    ensure!(SessionSignal::parse(source, b"a\x07b") == Err(SignalRejected::ControlCharacter));
    ensure!(SessionSignal::parse(source, "會話-1".as_bytes()).is_ok(), "any printable UTF-8");
    ensure!(!format!("{trimmed:?}").contains("abc"), "Debug never prints the signal");
    Ok(())
}

#[test]
fn affinity_digests_are_scoped_by_key_provider_and_source() -> anyhow::Result<()> {
    let signal = SessionSignal::parse(SignalSource::SessionHeader, b"s-1")?;
    let base = signal.key(ClientKeyId(1), ProviderKind::Openai);
    ensure!(base == signal.key(ClientKeyId(1), ProviderKind::Openai), "deterministic");
    ensure!(base != signal.key(ClientKeyId(2), ProviderKind::Openai), "scoped by client key");
    ensure!(base != signal.key(ClientKeyId(1), ProviderKind::Xai), "scoped by provider");
    let other_source = SessionSignal::parse(SignalSource::PromptCacheKey, b"s-1")?;
    ensure!(base != other_source.key(ClientKeyId(1), ProviderKind::Openai), "scoped by source");
    ensure!(base.to_hex().len() == 64, "SHA-256 hex");
    Ok(())
}

#[test]
fn oauth_flow_keys_hash_provider_and_binding() -> anyhow::Result<()> {
    let key = OAuthFlowKey::derive(ProviderKind::Openai, b"state");
    // SHA-256("openai" || 0x00 || "state")
    let mut expected = b"openai".to_vec();
    expected.push(0);
    expected.extend_from_slice(b"state");
    ensure!(key.digest == <[u8; 32]>::from(<sha2::Sha256 as sha2::Digest>::digest(&expected)), "documented derivation");
    ensure!(key != OAuthFlowKey::derive(ProviderKind::Xai, b"state"), "provider separates flows");
    ensure!(!format!("{key:?}").contains("state"), "Debug never prints the state");
    Ok(())
}

#[test]
fn error_kinds_map_to_stable_codes() {
    let down = CoordinationError::Unavailable("connection refused".to_owned());
    assert_eq!(down.kind(), CoordinationErrorKind::Unavailable);
    assert_eq!(CoordinationError::Timeout(Duration::from_secs(1)).kind(), CoordinationErrorKind::Unavailable);
    assert_eq!(down.kind().code(), "coordination_unavailable");
    assert_eq!(down.kind().http_status(), 503);
    let bug = CoordinationError::Protocol("bad reply".to_owned());
    assert_eq!(bug.kind().code(), "coordination_error");
    assert_eq!(bug.kind().http_status(), 500);
}

/// A lease port that always grants the period, to show the helper alone never runs a period
/// twice.
struct AlwaysWins {
    index: AtomicU64,
}

#[async_trait]
impl Leases for AlwaysWins {
    async fn try_acquire_lease(&self, _: &str, _: &ReplicaId, _: Duration) -> Result<Option<Lease>, CoordinationError> {
        Ok(None)
    }
    async fn renew_lease(&self, _: &Lease, _: Duration) -> Result<LeaseStatus, CoordinationError> {
        Ok(LeaseStatus::Lost)
    }
    async fn release_lease(&self, _: &Lease) -> Result<LeaseStatus, CoordinationError> {
        Ok(LeaseStatus::Lost)
    }
    async fn check_lease(&self, _: &Lease) -> Result<LeaseStatus, CoordinationError> {
        Ok(LeaseStatus::Lost)
    }
    async fn claim_period(&self, _: &str, _: Duration, _: &ReplicaId) -> Result<PeriodClaim, CoordinationError> {
        let index = self.index.load(Ordering::SeqCst);
        Ok(PeriodClaim { index, token: Some(FenceToken(index)), next_in: Duration::from_millis(5) })
    }
}

#[tokio::test]
async fn periodic_leader_runs_each_period_once_per_replica() -> anyhow::Result<()> {
    let leases = Arc::new(AlwaysWins { index: AtomicU64::new(100) });
    let mut leader = PeriodicLeader::new(leases.clone(), "task", Duration::from_secs(1), ReplicaId::random());
    ensure!(leader.poll().await?.run == Some(100), "first poll of a period runs");
    ensure!(leader.poll().await?.run.is_none(), "the same period never twice");
    leases.index.store(101, Ordering::SeqCst);
    let decision = leader.poll().await?;
    ensure!(decision.run == Some(101) && decision.next_in == Duration::from_millis(5), "{decision:?}");
    Ok(())
}
