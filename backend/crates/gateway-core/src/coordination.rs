//! Coordination ports: the cross-replica state the engine, the workers and the OAuth flows need
//! besides PostgreSQL. Production implements them over Redis (one Lua script per
//! read-modify-write); the embedded mode implements them in process. Both pass one contract
//! suite (`gateway-store/tests`). The acquire's steps are written once, in [`acquire_plan`]: the
//! in-process adapter runs it over its maps, `acquire.lua` is its copy for Redis.
//!
//! Everything behind these ports may be lost: it is rebuilt from PostgreSQL and provider facts,
//! and the protected acquire paths fail closed ([`CoordinationError`]) while it is unavailable.
//!
//! Hot-path budget (SPEC §3): before the upstream send a request calls
//! [`RequestSlots::acquire`] once — admission, provider circuit, account choice, request
//! interval, session affinity and the key's spend budgets in one round trip — and after the
//! response [`RequestSlots::release`] once (which also adds the request's spend). Long streams
//! cost nothing more: one [`ReplicaHeartbeats::heartbeat`] per replica and period renews every
//! slot the replica holds.

pub mod account_slots;
pub mod acquire;
pub mod acquire_plan;
pub mod admission;
pub mod affinity;
pub mod circuit;
pub mod continuation;
pub mod cooldown;
pub mod error;
pub mod heartbeat;
pub mod held_slots;
pub mod leader_lease;
pub mod lease_guard;
pub mod notifications;
pub mod oauth_pending;
pub mod time;
pub mod transcripts;

pub use account_slots::{AccountCandidate, AccountFeedback, AccountLease, FenceToken, Ineligible};
pub use acquire::{
    AcquireOutcome, AcquireRequest, AffinityOutcome, AffinityRequest, CandidateVerdict, Grant, HeldLeases, LeaseStatus,
    NoAccount, ReleaseOutcome, ReleaseRequest, ReplacedAttempt, RequestSlots,
};
pub use admission::{AdmissionDenial, AdmissionLease, AdmissionLimits, BudgetKind, Spend, SpendBudgets, SpendPeriod};
pub use affinity::{AffinityKey, RebindOutcome, SessionAffinity, SessionSignal, SignalRejected, SignalSource};
pub use circuit::{CircuitOutcome, CircuitPolicy, CircuitReport, CircuitSnapshot, CircuitState, ProviderCircuits};
pub use continuation::{ContinuationPin, ContinuationPins, PinLookup, PinScope, PinWrite};
pub use cooldown::{Cooldown, Cooldowns, ModelExclusion};
pub use error::{CoordinationError, CoordinationErrorKind};
pub use heartbeat::{HeartbeatOutcome, MAX_HEARTBEAT_LEASES, ReplicaHeartbeats};
pub use held_slots::HeldSlots;
pub use leader_lease::{Lease, Leases, PeriodClaim, PeriodDecision, PeriodicLeader, ReplicaId};
pub use lease_guard::LeaseGuard;
pub use notifications::{ChangeEvent, ChangeNotifier, ChangeSubscription};
pub use oauth_pending::{ClaimId, ClaimRelease, FlowClaim, FlowCreate, FlowFinish, OAuthFlowKey, OAuthPendingFlows};
pub use time::UnixMillis;
pub use transcripts::{TranscriptKey, TranscriptStore};

/// Every coordination port at once: what the composition root hands to the engine, the workers
/// and the admin OAuth use cases. Implemented automatically for any type that implements all
/// ports.
pub trait Coordination:
    RequestSlots
    + ReplicaHeartbeats
    + Cooldowns
    + ProviderCircuits
    + SessionAffinity
    + ContinuationPins
    + OAuthPendingFlows
    + Leases
    + ChangeNotifier
    + Send
    + Sync
    + 'static
{
}

impl<T> Coordination for T where
    T: RequestSlots
        + ReplicaHeartbeats
        + Cooldowns
        + ProviderCircuits
        + SessionAffinity
        + ContinuationPins
        + OAuthPendingFlows
        + Leases
        + ChangeNotifier
        + Send
        + Sync
        + 'static
{
}
