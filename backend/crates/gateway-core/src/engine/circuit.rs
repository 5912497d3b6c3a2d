//! The engine's side of the provider circuit: what each attempt reports, the half-open probe's
//! success, and the answer while the circuit is open. The state machine itself runs in the
//! coordination store (`coordination/circuit.rs`), inside the scripts the request already runs.

use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;

use super::Engine;
use crate::coordination::{CircuitOutcome, CircuitReport, LeaseGuard, UnixMillis};
use crate::domain::ProviderKind;
use crate::provider::AttemptFailure;

/// The report an attempt leaves on its lease guard: the release (or the next acquire of a
/// failover) hands it to the circuit. `None` when there is nothing to say.
pub fn report(
    engine: &Engine,
    provider: ProviderKind,
    outcome: Option<CircuitOutcome>,
    probe: bool,
) -> Option<CircuitReport> {
    (outcome.is_some() || probe).then_some(CircuitReport { provider, outcome, probe, policy: engine.settings.circuit })
}

/// A failed attempt's report ([`super::failover::circuit_outcome`]).
pub fn failed(engine: &Engine, provider: ProviderKind, failure: &AttemptFailure, probe: bool) -> Option<CircuitReport> {
    report(engine, provider, super::failover::circuit_outcome(failure), probe)
}

/// The upstream answered: a normal attempt reports success with its release; the half-open
/// probe closes the circuit at once (one round trip, only for the probe), so that traffic
/// flows again without waiting for the probe's stream to end. If that write fails, the release
/// tries again.
pub async fn succeeded(engine: &Engine, provider: ProviderKind, probe: bool, guard: &mut LeaseGuard) {
    if probe {
        match engine.circuits.record(provider, CircuitOutcome::Success, &engine.settings.circuit).await {
            Ok(snapshot) => {
                tracing::info!(%provider, state = ?snapshot.state, "half-open probe succeeded; circuit closed");
                guard.report_circuit(None);
                return;
            }
            Err(error) => {
                tracing::warn!(%error, %provider, "the probe's success was not recorded; the release retries")
            }
        }
    }
    guard.report_circuit(report(engine, provider, Some(CircuitOutcome::Success), probe));
}

/// The answer while the provider's circuit is open (or its one probe is in flight): nothing was
/// sent; retry once the open period ends.
pub fn open_error(until: UnixMillis) -> ApiError {
    let now = u64::try_from(OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000).unwrap_or(0);
    let wait = until.0.saturating_sub(now).div_ceil(1000).max(1);
    ApiError::new(
        ErrorCode::UpstreamUnavailable,
        "The upstream provider keeps failing; requests are paused until it recovers.",
    )
    .with_retry_after(wait)
}
