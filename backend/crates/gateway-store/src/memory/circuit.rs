//! `ProviderCircuits` in process; the same transitions as `circuit_record.lua`.

use async_trait::async_trait;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{
    CircuitOutcome, CircuitPolicy, CircuitSnapshot, CircuitState, CoordinationError, ProviderCircuits, UnixMillis,
};
use gateway_core::domain::ProviderKind;

use super::{CircuitRecord, MemoryCoordination, Phase};

#[async_trait]
impl ProviderCircuits for MemoryCoordination {
    async fn record(
        &self,
        provider: ProviderKind,
        outcome: CircuitOutcome,
        policy: &CircuitPolicy,
    ) -> Result<CircuitSnapshot, CoordinationError> {
        let (mut state, now) = self.lock();
        let circuit = state.circuits.entry(provider).or_default();
        if circuit.phase == Phase::Open && circuit.open_until <= now {
            circuit.phase = Phase::HalfOpen;
        }
        match outcome {
            CircuitOutcome::Success => {
                circuit.successes += 1;
                circuit.consecutive = 0;
                circuit.phase = Phase::Closed;
            }
            CircuitOutcome::Failure => {
                circuit.failures += 1;
                circuit.consecutive += 1;
                let trips = circuit.phase == Phase::HalfOpen
                    || (circuit.phase == Phase::Closed && circuit.consecutive >= policy.failure_threshold.max(1));
                if trips {
                    circuit.phase = Phase::Open;
                    circuit.open_until = now + duration_millis(policy.open_for);
                    circuit.opened += 1;
                }
            }
        }
        Ok(snapshot(circuit, now))
    }

    async fn circuit(&self, provider: ProviderKind) -> Result<CircuitSnapshot, CoordinationError> {
        let (state, now) = self.lock();
        Ok(state.circuits.get(&provider).map_or_else(|| snapshot(&CircuitRecord::default(), now), |c| snapshot(c, now)))
    }
}

fn snapshot(circuit: &CircuitRecord, now: u64) -> CircuitSnapshot {
    let state = match circuit.phase {
        Phase::Closed => CircuitState::Closed,
        Phase::Open if circuit.open_until > now => CircuitState::Open { until: UnixMillis(circuit.open_until) },
        Phase::Open | Phase::HalfOpen => CircuitState::HalfOpen,
    };
    CircuitSnapshot {
        state,
        consecutive_failures: circuit.consecutive,
        total_failures: circuit.failures,
        total_successes: circuit.successes,
        times_opened: circuit.opened,
    }
}
