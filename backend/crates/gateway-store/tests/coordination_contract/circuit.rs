//! Contract: provider circuit transitions and its effect on acquire.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::{
    AcquireOutcome, CircuitOutcome, CircuitPolicy, CircuitReport, CircuitState, Coordination, Grant, ReleaseRequest,
    ReplacedAttempt,
};
use gateway_core::domain::ProviderKind;
use test_support::wait_until;

use super::fixtures::{EXPIRY_DEADLINE, account, candidate, granted, request};

pub async fn circuit_opens_blocks_acquire_and_recovers<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let policy = policy(3, 300);
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

fn policy(threshold: u32, open_ms: u64) -> CircuitPolicy {
    CircuitPolicy { failure_threshold: threshold, open_for: Duration::from_millis(open_ms) }
}

fn report(outcome: Option<CircuitOutcome>, probe: bool, policy: CircuitPolicy) -> CircuitReport {
    CircuitReport { provider: ProviderKind::Openai, outcome, probe, policy }
}

async fn release_with<C: Coordination>(port: &C, grant: &Grant, circuit: CircuitReport) -> anyhow::Result<()> {
    let release = ReleaseRequest { leases: grant.held(), circuit: Some(circuit), ..ReleaseRequest::default() };
    port.release(&release).await?;
    Ok(())
}

async fn half_open<C: Coordination>(port: &C) -> anyhow::Result<()> {
    wait_until("the circuit to half-open", EXPIRY_DEADLINE, || async {
        matches!(port.circuit(ProviderKind::Openai).await, Ok(s) if s.state == CircuitState::HalfOpen).then_some(())
    })
    .await?;
    Ok(())
}

/// Outcomes reach the circuit through the release and through the next acquire of a failover,
/// in the same scripts: no round trip of their own.
pub async fn release_and_failover_feed_the_circuit<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let policy = policy(2, 60_000);
    let provider = ProviderKind::Openai;
    let first = granted(port.acquire(&request(vec![candidate(account(1), 5)])).await?)?;
    // A verdict-less report (nothing reached the upstream) changes nothing.
    let mut next = request(vec![candidate(account(2), 5)]);
    next.replaces =
        Some(ReplacedAttempt { lease: first.account, feedback: None, circuit: Some(report(None, false, policy)) });
    let second = granted(port.acquire(&next).await?)?;
    ensure!(port.circuit(provider).await?.total_failures == 0, "no verdict");
    let mut next = request(vec![candidate(account(3), 5)]);
    next.replaces = Some(ReplacedAttempt {
        lease: second.account,
        feedback: None,
        circuit: Some(report(Some(CircuitOutcome::Failure), false, policy)),
    });
    let third = granted(port.acquire(&next).await?)?;
    let snapshot = port.circuit(provider).await?;
    ensure!(snapshot.state == CircuitState::Closed && snapshot.consecutive_failures == 1, "{snapshot:?}");
    release_with(port.as_ref(), &third, report(Some(CircuitOutcome::Failure), false, policy)).await?;
    let snapshot = port.circuit(provider).await?;
    ensure!(matches!(snapshot.state, CircuitState::Open { .. }), "the second failure opens: {snapshot:?}");
    let refused = port.acquire(&request(vec![candidate(account(4), 5)])).await?;
    ensure!(matches!(refused, AcquireOutcome::CircuitOpen { .. }), "{refused:?}");
    // A late success of a call that started before the circuit opened does not close it.
    port.record(provider, CircuitOutcome::Success, &policy).await?;
    let snapshot = port.circuit(provider).await?;
    ensure!(matches!(snapshot.state, CircuitState::Open { .. }) && snapshot.total_successes == 1, "{snapshot:?}");
    Ok(())
}

/// Half-open lets exactly one probe through; its success closes the circuit for everyone.
pub async fn half_open_lets_one_probe_through<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let policy = policy(1, 200);
    let provider = ProviderKind::Openai;
    port.record(provider, CircuitOutcome::Failure, &policy).await?;
    half_open(port.as_ref()).await?;
    let probe = granted(port.acquire(&request(vec![candidate(account(1), 5)])).await?)?;
    ensure!(probe.probe, "the first acquire after the open period is the probe");
    for n in 2..6 {
        let refused = port.acquire(&request(vec![candidate(account(n), 5)])).await?;
        ensure!(matches!(refused, AcquireOutcome::CircuitOpen { .. }), "one probe at a time: {refused:?}");
    }
    release_with(port.as_ref(), &probe, report(Some(CircuitOutcome::Success), true, policy)).await?;
    ensure!(port.circuit(provider).await?.state == CircuitState::Closed, "the probe's success closes it");
    let after = granted(port.acquire(&request(vec![candidate(account(2), 5)])).await?)?;
    ensure!(!after.probe, "a closed circuit has no probe");
    Ok(())
}

/// A failed probe reopens the circuit; a probe whose outcome never comes back (its replica died)
/// stops blocking once its TTL ends; a verdict-less probe gives the probe back at once.
pub async fn a_failed_or_lost_probe_reopens_or_expires<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let policy = policy(1, 200);
    let provider = ProviderKind::Openai;
    port.record(provider, CircuitOutcome::Failure, &policy).await?;
    half_open(port.as_ref()).await?;
    let probe = granted(port.acquire(&request(vec![candidate(account(1), 5)])).await?)?;
    release_with(port.as_ref(), &probe, report(Some(CircuitOutcome::Failure), true, policy)).await?;
    let snapshot = port.circuit(provider).await?;
    ensure!(matches!(snapshot.state, CircuitState::Open { .. }) && snapshot.times_opened == 2, "{snapshot:?}");

    half_open(port.as_ref()).await?;
    let probe = granted(port.acquire(&request(vec![candidate(account(1), 5)])).await?)?;
    ensure!(probe.probe, "probe");
    release_with(port.as_ref(), &probe, report(None, true, policy)).await?;
    let again = granted(port.acquire(&request(vec![candidate(account(2), 5)])).await?)?;
    ensure!(again.probe, "a verdict-less probe hands the probe to the next request");

    // `again` is never reported: after the probe TTL another request may probe.
    let refused = port.acquire(&request(vec![candidate(account(3), 5)])).await?;
    ensure!(matches!(refused, AcquireOutcome::CircuitOpen { .. }), "{refused:?}");
    let taken_over = wait_until("the lost probe to expire", EXPIRY_DEADLINE, || async {
        match port.acquire(&request(vec![candidate(account(3), 5)])).await {
            Ok(AcquireOutcome::Granted(grant)) => Some(grant),
            _ => None,
        }
    })
    .await?;
    ensure!(taken_over.probe, "{taken_over:?}");
    Ok(())
}

/// The failure of the attempt a failover replaces can open the circuit: that acquire is then
/// refused (nothing is recorded for it) and the request answers without another upstream call.
pub async fn a_failover_that_trips_the_circuit_is_refused<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let policy = policy(1, 60_000);
    let first = granted(port.acquire(&request(vec![candidate(account(1), 1)])).await?)?;
    let mut next = request(vec![candidate(account(2), 1)]);
    next.replaces = Some(ReplacedAttempt {
        lease: first.account,
        feedback: None,
        circuit: Some(report(Some(CircuitOutcome::Failure), false, policy)),
    });
    let refused = port.acquire(&next).await?;
    ensure!(matches!(refused, AcquireOutcome::CircuitOpen { .. }), "{refused:?}");
    ensure!(port.circuit(ProviderKind::Openai).await?.times_opened == 1, "opened once");
    Ok(())
}
