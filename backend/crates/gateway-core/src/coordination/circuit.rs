//! Provider circuit: open after consecutive infrastructure failures, half-open once the open
//! period ends, closed again when the half-open probe succeeds.
//!
//! Read inside acquire (an open circuit refuses the request before any account is touched); a
//! half-open circuit lets exactly one probe through at a time (the acquire that claims it gets
//! [`super::Grant::probe`]; the claim lapses after `AcquireRequest::probe_ttl` if its outcome
//! never comes back). Outcomes are folded into the scripts that already run: the release after
//! the response, or the next acquire of a failover ([`CircuitReport`]); only a probe's success
//! is recorded at once ([`ProviderCircuits::record`]) so that the circuit closes for everyone
//! without waiting for the probe's stream to end. Transitions:
//!
//! - closed: a success resets the consecutive count; a failure adds one and opens the circuit
//!   for `open_for` at `failure_threshold`;
//! - open (period running): outcomes of calls that started before it opened only count;
//! - half-open (period over): a success closes, a failure opens again; either frees the probe.

use std::time::Duration;

use async_trait::async_trait;

use super::{CoordinationError, UnixMillis};
use crate::domain::ProviderKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CircuitState {
    Closed,
    /// Requests are refused until `until`.
    Open {
        until: UnixMillis,
    },
    /// The open period ended: traffic flows; the next failure reopens, the next success closes.
    HalfOpen,
}

/// Counts and state of one provider's circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CircuitSnapshot {
    pub state: CircuitState,
    pub consecutive_failures: u32,
    pub total_failures: u64,
    pub total_successes: u64,
    /// How many times the circuit opened.
    pub times_opened: u64,
}

/// When the circuit opens and for how long (runtime settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CircuitPolicy {
    pub failure_threshold: u32,
    pub open_for: Duration,
}

/// Infrastructure outcome of an upstream call (account-level errors are not circuit failures).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CircuitOutcome {
    /// The upstream answered (a response, or an account's or the request's own error).
    Success,
    /// Connect failure or 5xx: the provider's infrastructure failed.
    Failure,
}

/// What one attempt tells its provider's circuit, carried by the release or the next acquire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CircuitReport {
    pub provider: ProviderKind,
    /// `None`: no verdict (nothing reached the upstream, or the outcome says nothing about it).
    pub outcome: Option<CircuitOutcome>,
    /// The attempt held the half-open probe: the report gives it back, with or without a verdict.
    pub probe: bool,
    pub policy: CircuitPolicy,
}

#[async_trait]
pub trait ProviderCircuits: Send + Sync {
    async fn record(
        &self,
        provider: ProviderKind,
        outcome: CircuitOutcome,
        policy: &CircuitPolicy,
    ) -> Result<CircuitSnapshot, CoordinationError>;

    async fn circuit(&self, provider: ProviderKind) -> Result<CircuitSnapshot, CoordinationError>;
}
