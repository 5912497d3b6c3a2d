//! Contract: session affinity inside acquire and through the `SessionAffinity` port.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::{
    AccountFeedback, AffinityOutcome, AffinityRequest, Coordination, RebindOutcome, ReplacedAttempt, SessionSignal,
    SignalSource,
};
use gateway_core::domain::{ClientKeyId, ProviderKind};
use gateway_core::fault::Fault;

use super::fixtures::{account, candidate, granted, release_account, request};

fn affinity(session: &str) -> anyhow::Result<AffinityRequest> {
    let signal = SessionSignal::parse(SignalSource::SessionHeader, session.as_bytes())?;
    Ok(AffinityRequest { key: signal.key(ClientKeyId(1), ProviderKind::Openai), idle_ttl: Duration::from_secs(3600) })
}

pub async fn affinity_binds_hits_bypasses_and_rebinds<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let (a, b, c) = (account(1), account(2), account(3));
    let session = affinity("session-1")?;
    let with_session = |cands| {
        let mut wanted = request(cands);
        wanted.affinity = Some(session);
        wanted
    };
    let first = granted(port.acquire(&with_session(vec![candidate(b, 2), candidate(a, 2)])).await?)?;
    ensure!(first.account.account == b && first.affinity == AffinityOutcome::Bound, "{first:?}");
    // The binding wins over list order.
    let hit = granted(port.acquire(&with_session(vec![candidate(a, 2), candidate(b, 2)])).await?)?;
    ensure!(hit.account.account == b && hit.affinity == AffinityOutcome::Hit, "{hit:?}");
    // b is only busy (at cap): this request goes elsewhere, the binding stays.
    let bypass = granted(port.acquire(&with_session(vec![candidate(a, 2), candidate(b, 2)])).await?)?;
    ensure!(bypass.account.account == a && bypass.affinity == AffinityOutcome::Bypassed { bound: b }, "{bypass:?}");
    ensure!(port.binding(&session.key).await? == Some(b), "binding kept while b is busy");
    // b failed (429): the failover acquire releases it, cools it down and rebinds to c.
    let mut failover = with_session(vec![candidate(b, 2), candidate(c, 2)]);
    failover.replaces = Some(ReplacedAttempt {
        lease: hit.account,
        feedback: Some(AccountFeedback::Cooldown {
            duration: Duration::from_secs(60),
            fault: Fault::UsageLimitReached,
        }),
        circuit: None,
    });
    let moved = granted(port.acquire(&failover).await?)?;
    ensure!(moved.account.account == c && moved.affinity == AffinityOutcome::Rebound { from: b }, "{moved:?}");
    ensure!(port.binding(&session.key).await? == Some(c), "binding moved to c");
    // Another client key with the same session id never meets this binding.
    let foreign =
        SessionSignal::parse(SignalSource::SessionHeader, b"session-1")?.key(ClientKeyId(2), ProviderKind::Openai);
    ensure!(port.binding(&foreign).await?.is_none(), "bindings are tenant-scoped");
    release_account(port.as_ref(), first.account).await?;
    Ok(())
}

pub async fn affinity_bind_and_rebind_are_atomic<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let key = affinity("session-2")?.key;
    let ttl = Duration::from_secs(3600);
    let mut racers = tokio::task::JoinSet::new();
    for n in 1..=20 {
        let port = Arc::clone(&port);
        racers.spawn(async move { port.bind_if_absent(&key, account(n), ttl).await });
    }
    let mut winners = std::collections::HashSet::new();
    while let Some(result) = racers.join_next().await {
        winners.insert(result??);
    }
    ensure!(winners.len() == 1, "first binding is atomic: everyone sees one account, saw {winners:?}");
    let bound = winners.into_iter().next().unwrap_or(account(0));

    let other = account(if bound == account(1) { 2 } else { 1 });
    let wrong = port.rebind(&key, other, account(99), ttl).await?;
    ensure!(wrong == RebindOutcome::Moved { current: bound }, "CAS from a stale account fails: {wrong:?}");
    ensure!(port.rebind(&key, bound, account(99), ttl).await? == RebindOutcome::Rebound, "CAS succeeds");
    ensure!(port.binding(&key).await? == Some(account(99)), "rebound");
    port.forget(&key).await?;
    ensure!(port.rebind(&key, account(99), bound, ttl).await? == RebindOutcome::Missing, "no resurrection");
    ensure!(port.binding(&key).await?.is_none(), "rebind never creates a binding");
    Ok(())
}
