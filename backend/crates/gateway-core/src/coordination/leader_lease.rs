//! Leases with fencing tokens: exclusive named leases (e.g. single-flight credential refresh
//! across replicas) and period leases that make a periodic task run once per period across all
//! replicas.
//!
//! A period lease is keyed by `floor(store_now / period)`, taken with SET NX and a TTL of two
//! periods, and never released early: whoever takes period N's key runs period N; nobody else
//! can, and the winner itself skips a period it already ran. The period index comes from the
//! store's clock, so replicas with skewed clocks still agree on N.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use super::{CoordinationError, FenceToken, LeaseStatus};

/// One process of the gateway, random per start.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReplicaId(pub String);

impl ReplicaId {
    pub fn random() -> Self {
        Self(uuid::Uuid::new_v4().simple().to_string())
    }
}

impl fmt::Display for ReplicaId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A held exclusive lease. The token grows with every grant of the same name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub name: String,
    pub holder: ReplicaId,
    pub token: FenceToken,
}

/// The answer to "may I run the current period?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeriodClaim {
    /// `floor(store_now / period)`.
    pub index: u64,
    /// Set when this call took the period's lease.
    pub token: Option<FenceToken>,
    /// Time until the next period starts (store clock).
    pub next_in: Duration,
}

#[async_trait]
pub trait Leases: Send + Sync {
    /// Takes the lease `name` if nobody holds it.
    async fn try_acquire_lease(
        &self,
        name: &str,
        holder: &ReplicaId,
        ttl: Duration,
    ) -> Result<Option<Lease>, CoordinationError>;

    /// Extends the lease if `lease` (holder + token) still holds it.
    async fn renew_lease(&self, lease: &Lease, ttl: Duration) -> Result<LeaseStatus, CoordinationError>;

    /// Releases the lease if `lease` still holds it; a stale holder releases nothing.
    async fn release_lease(&self, lease: &Lease) -> Result<LeaseStatus, CoordinationError>;

    /// The fencing check before a write whose authority is the lease.
    async fn check_lease(&self, lease: &Lease) -> Result<LeaseStatus, CoordinationError>;

    /// Tries to take the lease of the current period of `task`.
    async fn claim_period(
        &self,
        task: &str,
        period: Duration,
        holder: &ReplicaId,
    ) -> Result<PeriodClaim, CoordinationError>;
}

/// Turns (task, period, lease port) into "should I run period N?" for one replica.
pub struct PeriodicLeader {
    leases: Arc<dyn Leases>,
    task: String,
    period: Duration,
    holder: ReplicaId,
    last_run: Option<u64>,
}

/// What [`PeriodicLeader::poll`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeriodDecision {
    /// `Some(N)`: run period N now (this replica holds its lease and has not run it).
    pub run: Option<u64>,
    /// When to ask again: the start of the next period.
    pub next_in: Duration,
}

impl PeriodicLeader {
    pub fn new(leases: Arc<dyn Leases>, task: impl Into<String>, period: Duration, holder: ReplicaId) -> Self {
        Self { leases, task: task.into(), period, holder, last_run: None }
    }

    pub fn task(&self) -> &str {
        &self.task
    }

    /// Claims the current period; `run` is set at most once per period index for this replica,
    /// and for at most one replica across the deployment.
    pub async fn poll(&mut self) -> Result<PeriodDecision, CoordinationError> {
        let claim = self.leases.claim_period(&self.task, self.period, &self.holder).await?;
        let fresh = self.last_run.is_none_or(|last| claim.index > last);
        let run = (claim.token.is_some() && fresh).then_some(claim.index);
        if run.is_some() {
            self.last_run = run;
        }
        Ok(PeriodDecision { run, next_in: claim.next_in })
    }
}
