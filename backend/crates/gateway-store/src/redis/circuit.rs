//! `ProviderCircuits` over the circuit hash (also read by the acquire script).

use async_trait::async_trait;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{
    CircuitOutcome, CircuitPolicy, CircuitSnapshot, CircuitState, CoordinationError, ProviderCircuits, UnixMillis,
};
use gateway_core::domain::ProviderKind;

use super::RedisCoordination;
use super::reply::Reply;

#[async_trait]
impl ProviderCircuits for RedisCoordination {
    async fn record(
        &self,
        provider: ProviderKind,
        outcome: CircuitOutcome,
        policy: &CircuitPolicy,
    ) -> Result<CircuitSnapshot, CoordinationError> {
        let script = &self.scripts.circuit_record;
        let value = script
            .call()
            .key(self.keys.circuit(provider))
            .arg(match outcome {
                CircuitOutcome::Success => "success",
                CircuitOutcome::Failure => "failure",
            })
            .arg(policy.failure_threshold.max(1))
            .arg(duration_millis(policy.open_for))
            .invoke(&self.connection)
            .await?;
        parse_snapshot(&mut Reply::new(script.name, value)?)
    }

    async fn circuit(&self, provider: ProviderKind) -> Result<CircuitSnapshot, CoordinationError> {
        let script = &self.scripts.circuit_read;
        let value = script.call().key(self.keys.circuit(provider)).invoke(&self.connection).await?;
        parse_snapshot(&mut Reply::new(script.name, value)?)
    }
}

fn parse_snapshot(reply: &mut Reply) -> Result<CircuitSnapshot, CoordinationError> {
    let state = reply.text()?;
    let open_until = UnixMillis(reply.u64()?);
    let state = match state.as_str() {
        "closed" => CircuitState::Closed,
        "open" => CircuitState::Open { until: open_until },
        "half_open" => CircuitState::HalfOpen,
        other => return Err(reply.unknown(other)),
    };
    Ok(CircuitSnapshot {
        state,
        consecutive_failures: reply.u32()?,
        total_failures: reply.u64()?,
        total_successes: reply.u64()?,
        times_opened: reply.u64()?,
    })
}
