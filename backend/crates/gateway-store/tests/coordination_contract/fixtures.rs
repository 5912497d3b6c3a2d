//! Builders shared by the contract tests.

use std::time::Duration;

use anyhow::bail;
use gateway_core::coordination::{
    AccountCandidate, AccountLease, AcquireOutcome, AcquireRequest, AdmissionLimits, Grant, HeldLeases, ReleaseRequest,
    RequestSlots, SpendBudgets, SpendPeriod,
};
use gateway_core::domain::{AccountId, BootId, ClientKeyId, ProviderKind, RequestId, RotationStrategy};
use gateway_core::selection::QuotaStanding;

/// Deadline for conditions that depend on TTL expiry (generous for a loaded 2-core machine).
pub const EXPIRY_DEADLINE: Duration = Duration::from_secs(10);

/// How long an unreported half-open probe blocks the next one.
pub const PROBE_TTL: Duration = Duration::from_millis(300);

/// Every test has its own adapter (fresh in-process state or a unique Redis prefix).
pub fn account(n: i64) -> AccountId {
    AccountId(n)
}

pub fn candidate(account: AccountId, cap: u32) -> AccountCandidate {
    AccountCandidate {
        account,
        max_in_flight: cap,
        request_interval: Duration::ZERO,
        weight: 1,
        standing: QuotaStanding::default(),
    }
}

/// The boot every fixture request is acquired by (each test has its own adapter).
pub fn boot() -> BootId {
    BootId(uuid::Uuid::from_u128(0xb001))
}

pub fn request(candidates: Vec<AccountCandidate>) -> AcquireRequest {
    AcquireRequest {
        request: RequestId::new(),
        owner: boot(),
        provider: ProviderKind::Openai,
        model: "gpt-5".to_owned(),
        admission: None,
        candidates,
        // The last used account while it stays eligible; among fresh accounts, list order.
        strategy: RotationStrategy::Sticky,
        affinity: None,
        lease_ttl: Duration::from_secs(30),
        probe_ttl: PROBE_TTL,
        replaces: None,
    }
}

/// Admission limits of `client_key` without budgets, in today's budget period.
pub fn limits(
    client_key: ClientKeyId,
    max_concurrency: Option<u32>,
    requests_per_minute: Option<u32>,
) -> AdmissionLimits {
    AdmissionLimits {
        client_key,
        max_concurrency,
        requests_per_minute,
        budgets: SpendBudgets::default(),
        period: SpendPeriod::at(time::OffsetDateTime::now_utc()),
    }
}

pub fn granted(outcome: AcquireOutcome) -> anyhow::Result<Grant> {
    match outcome {
        AcquireOutcome::Granted(grant) => Ok(grant),
        other => bail!("expected a grant, got {other:?}"),
    }
}

pub async fn release<C: RequestSlots + ?Sized>(port: &C, grant: &Grant) -> anyhow::Result<()> {
    port.release(&ReleaseRequest { leases: grant.held(), ..ReleaseRequest::default() }).await?;
    Ok(())
}

pub async fn release_account<C: RequestSlots + ?Sized>(port: &C, lease: AccountLease) -> anyhow::Result<()> {
    let leases = HeldLeases { admission: None, account: Some(lease) };
    port.release(&ReleaseRequest { leases, ..ReleaseRequest::default() }).await?;
    Ok(())
}
