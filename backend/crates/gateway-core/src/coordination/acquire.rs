//! The hot-path port: one call before the upstream send, one after the response.
//!
//! [`RequestSlots::acquire`] decides atomically, in one round trip: the provider circuit,
//! client admission, the session-affinity read (and first binding, or rebinding away from a
//! failed account), and the account choice among the engine's ordered candidates under cap,
//! interval, cooldown and model exclusion — the policy of [`crate::selection::decide`]. Either
//! everything is recorded (slots, interval start, binding) or nothing is. The steps are
//! [`super::acquire_plan::run`], which every adapter but Redis executes over its own storage.

use std::time::Duration;

use async_trait::async_trait;

use super::account_slots::{AccountCandidate, AccountFeedback, AccountLease, Ineligible};
use super::admission::{AdmissionDenial, AdmissionLease, AdmissionLimits, Spend};
use super::affinity::AffinityKey;
use super::circuit::CircuitReport;
use super::{CoordinationError, UnixMillis};
use crate::domain::{AccountId, BootId, ProviderKind, RequestId, RotationStrategy};

/// Upper bound on the candidates of one acquire (the `K` of the design): the script's work and
/// key count stay bounded.
pub const MAX_CANDIDATES: usize = 16;

/// Everything one acquire decides on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcquireRequest {
    pub request: RequestId,
    /// The process acquiring: the granted slots are its own (renewed by its heartbeat, freed
    /// with its other slots when a successor releases its boot).
    pub owner: BootId,
    pub provider: ProviderKind,
    /// The upstream model, for model exclusions.
    pub model: String,
    /// `None` skips admission: a failover acquire of a request that already holds its admission
    /// slot (or a key without limits).
    pub admission: Option<AdmissionLimits>,
    /// Ordered by the engine's strategy, at most [`MAX_CANDIDATES`], all of one provider.
    pub candidates: Vec<AccountCandidate>,
    /// How the eligible candidates are ordered ([`crate::selection::decide`]).
    pub strategy: RotationStrategy,
    pub affinity: Option<AffinityRequest>,
    /// TTL of the new slots; the owner's heartbeat renews them while the request runs.
    pub lease_ttl: Duration,
    /// When the provider circuit is half-open and this acquire takes the probe: how long the
    /// probe blocks others if its outcome never comes back.
    pub probe_ttl: Duration,
    /// The failed attempt this acquire replaces (failover): its slot is released and its
    /// feedback applied in the same script, and a session bound to its account is rebound.
    pub replaces: Option<ReplacedAttempt>,
}

impl AcquireRequest {
    /// What every adapter checks before deciding: 1..=[`MAX_CANDIDATES`] candidates and a
    /// positive lease TTL.
    pub fn validate(&self) -> Result<(), CoordinationError> {
        if self.candidates.is_empty() || self.candidates.len() > MAX_CANDIDATES {
            return Err(CoordinationError::InvalidInput(format!(
                "acquire needs 1..={MAX_CANDIDATES} candidates, got {}",
                self.candidates.len()
            )));
        }
        if self.lease_ttl.as_millis() == 0 {
            return Err(CoordinationError::InvalidInput("lease TTL must be at least 1 ms".to_owned()));
        }
        Ok(())
    }
}

/// The session-affinity part of an acquire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AffinityRequest {
    pub key: AffinityKey,
    /// Idle expiry of the binding (1 h by default); renewed on every hit.
    pub idle_ttl: Duration,
}

/// The slot of a failed attempt handed back during failover. Its feedback and circuit report
/// are applied first, whatever the acquire then decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplacedAttempt {
    pub lease: AccountLease,
    pub feedback: Option<AccountFeedback>,
    pub circuit: Option<CircuitReport>,
}

/// The result of an acquire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcquireOutcome {
    Granted(Grant),
    /// Client admission refused; nothing was recorded.
    AdmissionDenied(AdmissionDenial),
    /// The provider circuit is open until `until`; nothing was recorded.
    CircuitOpen {
        until: UnixMillis,
    },
    /// Admission would pass but no candidate is eligible; nothing was recorded.
    NoAccount(NoAccount),
}

/// A successful acquire: the chosen account with its fenced slot, and the admission slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    pub account: AccountLease,
    /// Present when admission ran and the key has a concurrency limit.
    pub admission: Option<AdmissionLease>,
    /// In-flight slots on the chosen account, this one included.
    pub in_flight: u32,
    pub affinity: AffinityOutcome,
    /// The store's clock at the decision.
    pub now: UnixMillis,
    /// The provider circuit was half-open and this request is its one probe: report its
    /// outcome (with `probe: true`) so the circuit closes or opens again.
    pub probe: bool,
}

impl Grant {
    pub fn held(&self) -> HeldLeases {
        HeldLeases { admission: self.admission, account: Some(self.account) }
    }
}

/// What acquire did with the session binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AffinityOutcome {
    /// No affinity key was given.
    NotRequested,
    /// The bound account was eligible and chosen; the idle expiry was renewed.
    Hit,
    /// No binding existed; the chosen account is now bound.
    Bound,
    /// The bound account had failed (the replaced attempt's account), is cooling down, is
    /// excluded for the model or is no longer a candidate; the binding moved to the chosen one.
    Rebound { from: AccountId },
    /// The bound account is only busy (at cap or inside its interval): this request used
    /// another account and the binding stays.
    Bypassed { bound: AccountId },
}

/// Why no candidate could be chosen: one verdict per candidate, in the request's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoAccount {
    pub verdicts: Vec<CandidateVerdict>,
    pub now: UnixMillis,
}

impl NoAccount {
    /// The shortest wait after which an interval-limited candidate becomes eligible, if any
    /// candidate is only waiting for its interval: the engine may wait that long and retry.
    pub fn shortest_interval_wait(&self) -> Option<Duration> {
        self.verdicts
            .iter()
            .filter_map(|v| match v.reason {
                Ineligible::IntervalWait { wait } => Some(wait),
                _ => None,
            })
            .min()
    }

    /// The earliest moment one of the candidates is expected to be eligible again: a cooldown's
    /// or an exclusion's end, an interval's; a candidate at its cap in a second (a slot may free
    /// at any moment).
    pub fn earliest_back(&self) -> Option<UnixMillis> {
        self.verdicts
            .iter()
            .map(|verdict| match verdict.reason {
                Ineligible::CoolingDown { until } | Ineligible::ModelExcluded { until } => until,
                Ineligible::AtCap { .. } => UnixMillis(self.now.0 + 1000),
                Ineligible::IntervalWait { wait } => {
                    UnixMillis(self.now.0 + u64::try_from(wait.as_millis()).unwrap_or(u64::MAX))
                }
            })
            .min()
    }

    /// The earliest cooldown end among the candidates, if all of them are cooling down
    /// (the engine answers `rate_limited` with this deadline).
    pub fn all_cooling_down_until(&self) -> Option<UnixMillis> {
        let mut earliest: Option<UnixMillis> = None;
        for verdict in &self.verdicts {
            let Ineligible::CoolingDown { until } = verdict.reason else { return None };
            earliest = Some(earliest.map_or(until, |e| e.min(until)));
        }
        earliest
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CandidateVerdict {
    pub account: AccountId,
    pub reason: Ineligible,
}

/// The leases a request holds, handed to the heartbeat and the release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeldLeases {
    pub admission: Option<AdmissionLease>,
    pub account: Option<AccountLease>,
}

/// The release after the response (or error, disconnect, cancellation).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReleaseRequest {
    pub leases: HeldLeases,
    /// Applied to the account of `leases.account` even if its slot had already expired.
    pub feedback: Option<AccountFeedback>,
    /// What the finished request spent, added to its key's day and month counters.
    pub spend: Option<Spend>,
    /// The last attempt's outcome for its provider's circuit.
    pub circuit: Option<CircuitReport>,
}

/// Whether a lease was still held when checked or released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseStatus {
    /// Held, or held until this release.
    Held,
    /// Expired or superseded: a stale holder.
    Lost,
    /// No lease of this kind was given.
    Absent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReleaseOutcome {
    pub admission: LeaseStatus,
    pub account: LeaseStatus,
}

/// Admission + account slots, the hot-path port.
#[async_trait]
pub trait RequestSlots: Send + Sync {
    /// One round trip: decide and record admission, account slot, interval start and affinity.
    async fn acquire(&self, request: &AcquireRequest) -> Result<AcquireOutcome, CoordinationError>;

    /// Free the slots, apply the account feedback and add the spend, in one round trip.
    async fn release(&self, release: &ReleaseRequest) -> Result<ReleaseOutcome, CoordinationError>;

    /// Whether `lease` still names a live slot: the fencing check a holder makes before a write
    /// whose authority comes from the slot.
    async fn check_account_lease(&self, lease: &AccountLease) -> Result<LeaseStatus, CoordinationError>;
}
