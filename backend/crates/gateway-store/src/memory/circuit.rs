//! `ProviderCircuits` in process; the same transitions as `circuit_apply` in `prelude.lua`.

use async_trait::async_trait;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{
    CircuitOutcome, CircuitPolicy, CircuitReport, CircuitSnapshot, CircuitState, CoordinationError, ProviderCircuits,
    UnixMillis,
};
use gateway_core::domain::ProviderKind;

use super::{CircuitRecord, MemoryCoordination, Phase, State};

#[async_trait]
impl ProviderCircuits for MemoryCoordination {
    async fn record(
        &self,
        provider: ProviderKind,
        outcome: CircuitOutcome,
        policy: &CircuitPolicy,
    ) -> Result<CircuitSnapshot, CoordinationError> {
        let (mut state, now) = self.lock();
        let report = CircuitReport { provider, outcome: Some(outcome), probe: false, policy: *policy };
        apply(&mut state, now, &report);
        Ok(snapshot(&state.circuits[&provider], now))
    }

    async fn circuit(&self, provider: ProviderKind) -> Result<CircuitSnapshot, CoordinationError> {
        let (state, now) = self.lock();
        Ok(state.circuits.get(&provider).map_or_else(|| snapshot(&CircuitRecord::default(), now), |c| snapshot(c, now)))
    }
}

/// One report: closed counts consecutive failures and opens at the threshold; while open only
/// the totals move; half-open decides on the next outcome. A decision (and a probe's report)
/// frees the probe.
pub(super) fn apply(state: &mut State, now: u64, report: &CircuitReport) {
    let circuit = state.circuits.entry(report.provider).or_default();
    let half_open = circuit.phase != Phase::Closed && circuit.open_until <= now;
    if report.probe {
        circuit.probe_until = 0;
    }
    match report.outcome {
        None => {}
        Some(CircuitOutcome::Success) => {
            circuit.successes += 1;
            if circuit.phase == Phase::Closed || half_open {
                circuit.consecutive = 0;
                circuit.phase = Phase::Closed;
                circuit.probe_until = 0;
            }
        }
        Some(CircuitOutcome::Failure) => {
            circuit.failures += 1;
            let trips = half_open
                || (circuit.phase == Phase::Closed
                    && circuit.consecutive + 1 >= report.policy.failure_threshold.max(1));
            if circuit.phase == Phase::Closed || half_open {
                circuit.consecutive += 1;
            }
            if trips {
                circuit.phase = Phase::Open;
                circuit.open_until = now + duration_millis(report.policy.open_for);
                circuit.opened += 1;
                circuit.probe_until = 0;
            }
        }
    }
}

fn snapshot(circuit: &CircuitRecord, now: u64) -> CircuitSnapshot {
    let state = match circuit.phase {
        Phase::Closed => CircuitState::Closed,
        Phase::Open if circuit.open_until > now => CircuitState::Open { until: UnixMillis(circuit.open_until) },
        Phase::Open => CircuitState::HalfOpen,
    };
    CircuitSnapshot {
        state,
        consecutive_failures: circuit.consecutive,
        total_failures: circuit.failures,
        total_successes: circuit.successes,
        times_opened: circuit.opened,
    }
}
