//! Provider circuit: open after consecutive failures, half-open once the open period ends,
//! closed again on the first success. Read inside acquire (an open circuit refuses the request
//! before any account is touched); fed from the release path.

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
    Success,
    Failure,
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
