//! Contract: provider circuit transitions and its effect on acquire.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::{AcquireOutcome, CircuitOutcome, CircuitPolicy, CircuitState, Coordination};
use gateway_core::domain::ProviderKind;
use test_support::wait_until;

use super::fixtures::{EXPIRY_DEADLINE, account, candidate, granted, request};

pub async fn circuit_opens_blocks_acquire_and_recovers<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let policy = CircuitPolicy { failure_threshold: 3, open_for: Duration::from_millis(300) };
    let provider = ProviderKind::Openai;
    ensure!(port.circuit(provider).await?.state == CircuitState::Closed, "closed by default");
    for _ in 0..2 {
        port.record(provider, CircuitOutcome::Failure, &policy).await?;
    }
    let success = port.record(provider, CircuitOutcome::Success, &policy).await?;
    ensure!(success.consecutive_failures == 0 && success.total_failures == 2, "{success:?}");
    let mut last = success;
    for _ in 0..3 {
        last = port.record(provider, CircuitOutcome::Failure, &policy).await?;
    }
    ensure!(matches!(last.state, CircuitState::Open { .. }) && last.times_opened == 1, "opened: {last:?}");
    let refused = port.acquire(&request(vec![candidate(account(1), 5)])).await?;
    ensure!(matches!(refused, AcquireOutcome::CircuitOpen { .. }), "open circuit refuses: {refused:?}");
    let mut other = request(vec![candidate(account(2), 5)]);
    other.provider = ProviderKind::Xai;
    granted(port.acquire(&other).await?)?;

    wait_until("the circuit to half-open", EXPIRY_DEADLINE, || async {
        matches!(port.circuit(provider).await, Ok(s) if s.state == CircuitState::HalfOpen).then_some(())
    })
    .await?;
    granted(port.acquire(&request(vec![candidate(account(1), 5)])).await?)?;
    let reopened = port.record(provider, CircuitOutcome::Failure, &policy).await?;
    ensure!(matches!(reopened.state, CircuitState::Open { .. }) && reopened.times_opened == 2, "{reopened:?}");
    wait_until("the circuit to half-open again", EXPIRY_DEADLINE, || async {
        matches!(port.circuit(provider).await, Ok(s) if s.state == CircuitState::HalfOpen).then_some(())
    })
    .await?;
    let closed = port.record(provider, CircuitOutcome::Success, &policy).await?;
    ensure!(closed.state == CircuitState::Closed && closed.total_successes == 2, "{closed:?}");
    Ok(())
}
