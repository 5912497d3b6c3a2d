//! Active quota probes, shared by every provider with a usage endpoint.
//!
//! Traffic already reports quota (rate-limit headers and in-stream events, written by the
//! [`QuotaRecorder`]). Probes cover the rest: accounts nobody used lately, and above all
//! exhausted accounts whose reset time has passed — traffic never reaches them, so the probe is
//! what writes `allowed` again and brings them back. Probe results go through the same
//! revision-fenced writer as traffic observations, so all three sources end in one state.
//!
//! Rules: only a clear reading writes `allowed`/`exhausted` (no reading, no write); a probe's
//! 401/403 says nothing about the refresh token and never touches credential facts; a probe
//! that reads `allowed` also clears the account's 429 cooldown (the reset it waited for is
//! over).
//!
//! [`QuotaRecorder`]: crate::quota_recorder::QuotaRecorder

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::coordination::Cooldowns;
use crate::domain::{AccountId, ProviderKind, QuotaFacts, QuotaState};
use crate::observation::QuotaWriter;
use crate::snapshot::{AccountEntry, SnapshotHolder};

/// Why a probe produced no reading.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuotaProbeFailure {
    /// 401/403: the access token was refused. Not evidence against the refresh token.
    #[error("the usage endpoint refused the access token")]
    Unauthorized,
    /// The access token is past its expiry: not sent (the refresh worker renews it).
    #[error("the access token has expired")]
    AccessTokenExpired,
    #[error("the account has no usable credential")]
    NoCredential,
    #[error("the usage probe failed: {0}")]
    Transient(String),
}

/// The provider-specific part: read one account's quota.
#[async_trait]
pub trait QuotaProbe: Send + Sync {
    fn provider(&self) -> ProviderKind;
    /// `Ok(None)`: the upstream answered without clear evidence.
    async fn probe_quota(&self, account: &AccountEntry) -> Result<Option<QuotaFacts>, QuotaProbeFailure>;
}

#[derive(Debug, thiserror::Error)]
pub enum QuotaProbeError {
    #[error("account {0} is not in the routing snapshot")]
    UnknownAccount(AccountId),
    #[error("no quota probe for provider {0}")]
    Unsupported(ProviderKind),
    #[error(transparent)]
    Failed(#[from] QuotaProbeFailure),
}

impl QuotaProbeError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownAccount(_) => "not_found",
            Self::Unsupported(_) => "provider_unsupported",
            Self::Failed(QuotaProbeFailure::Unauthorized) => "upstream_unauthorized",
            Self::Failed(QuotaProbeFailure::AccessTokenExpired) => "access_token_expired",
            Self::Failed(QuotaProbeFailure::NoCredential) => "credential_unreadable",
            Self::Failed(QuotaProbeFailure::Transient(_)) => "upstream_unavailable",
        }
    }
}

/// What one scheduled pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QuotaProbeReport {
    pub probed: usize,
    pub written: usize,
    pub failed: usize,
}

pub struct QuotaProber {
    probes: Vec<Arc<dyn QuotaProbe>>,
    writer: Arc<dyn QuotaWriter>,
    cooldowns: Arc<dyn Cooldowns>,
    snapshots: SnapshotHolder,
}

impl QuotaProber {
    pub fn new(
        probes: Vec<Arc<dyn QuotaProbe>>,
        writer: Arc<dyn QuotaWriter>,
        cooldowns: Arc<dyn Cooldowns>,
        snapshots: SnapshotHolder,
    ) -> Self {
        Self { probes, writer, cooldowns, snapshots }
    }

    fn probe_for(&self, provider: ProviderKind) -> Option<&Arc<dyn QuotaProbe>> {
        self.probes.iter().find(|p| p.provider() == provider)
    }

    /// Probes one account now (admin "refresh quota"); writes the reading when it is clear.
    pub async fn probe_account(&self, account: AccountId) -> Result<Option<QuotaFacts>, QuotaProbeError> {
        let snapshot = self.snapshots.current();
        let entry = snapshot.account(account).ok_or(QuotaProbeError::UnknownAccount(account))?;
        let probe = self.probe_for(entry.provider()).ok_or(QuotaProbeError::Unsupported(entry.provider()))?;
        let reading = probe.probe_quota(entry).await?;
        if let Some(facts) = &reading {
            self.apply(account, facts.clone()).await;
        }
        Ok(reading)
    }

    async fn apply(&self, account: AccountId, facts: QuotaFacts) {
        let allowed = facts.state == QuotaState::Allowed;
        self.writer.write(account, facts).await;
        if allowed && let Err(err) = self.cooldowns.clear_cooldown(account).await {
            tracing::debug!(%account, error = %err, "cooldown not cleared after an allowed probe");
        }
    }

    /// One scheduled pass: first exhausted accounts whose reset passed, then accounts whose
    /// quota was not observed within `stale_after`, oldest first; at most `limit` probes.
    pub async fn run_due(&self, stale_after: Duration, limit: usize) -> QuotaProbeReport {
        let snapshot = self.snapshots.current();
        let now = OffsetDateTime::now_utc();
        let stale = time::Duration::try_from(stale_after).unwrap_or(time::Duration::MAX);
        let mut due: Vec<(u8, i64, &AccountEntry)> = snapshot
            .accounts()
            .iter()
            .map(AsRef::as_ref)
            .filter(|a| a.is_schedulable() && self.probe_for(a.provider()).is_some())
            .filter_map(|a| probe_priority(a, now, stale).map(|(rank, at)| (rank, at, a)))
            .collect();
        due.sort_by_key(|(rank, at, a)| (*rank, *at, a.id()));
        let mut report = QuotaProbeReport::default();
        for (_, _, account) in due.into_iter().take(limit) {
            let Some(probe) = self.probe_for(account.provider()) else { continue };
            report.probed += 1;
            match probe.probe_quota(account).await {
                Ok(Some(facts)) => {
                    self.apply(account.id(), facts).await;
                    report.written += 1;
                }
                Ok(None) => {}
                Err(err) => {
                    tracing::debug!(account = %account.id(), error = %err, "quota probe failed");
                    report.failed += 1;
                }
            }
        }
        report
    }
}

/// `(rank, sort time)` when the account should be probed: rank 0 for an exhausted account whose
/// reset passed (or is unknown), rank 1 for a stale observation; `None` when it is fresh.
///
/// The reset of an exhausted account is the latest reset among its windows at 100 % (a full
/// 5-hour window must not wait for the weekly window's reset); when no window is full (the
/// evidence was a flag), the earliest reset of any window.
fn probe_priority(account: &AccountEntry, now: OffsetDateTime, stale: time::Duration) -> Option<(u8, i64)> {
    let quota = &account.record.quota;
    let observed = quota.observed_at.map_or(i64::MIN, OffsetDateTime::unix_timestamp);
    let is_stale = quota.observed_at.is_none_or(|at| now - at >= stale);
    if quota.state == QuotaState::Exhausted {
        return match crate::domain::quota_window::exhausted_reset(&quota.windows) {
            Some(reset) if reset > now.unix_timestamp() => None,
            Some(reset) => Some((0, reset)),
            None => is_stale.then_some((0, observed)),
        };
    }
    is_stale.then_some((1, observed))
}
