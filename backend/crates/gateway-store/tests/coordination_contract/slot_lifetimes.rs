//! Contract: how slots end: TTL expiry, fencing, the heartbeat, release feedback, the RAII guard.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure};
use gateway_core::coordination::{
    AccountFeedback, AcquireOutcome, Coordination, HeartbeatOutcome, HeldLeases, HeldSlots, Ineligible, LeaseStatus,
    ReleaseRequest, RequestSlots,
};
use gateway_core::domain::ClientKeyId;
use gateway_core::fault::Fault;
use test_support::wait_until;

use super::fixtures::{EXPIRY_DEADLINE, account, boot, candidate, granted, limits, request};

pub async fn leaked_slot_expires_and_stale_token_is_rejected<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let a = account(1);
    let mut short = request(vec![candidate(a, 1)]);
    short.lease_ttl = Duration::from_millis(300);
    let leaked = granted(port.acquire(&short).await?)?;
    // Never released: the holder "died". The slot frees itself by TTL.
    let successor = wait_until("the leaked slot to expire", EXPIRY_DEADLINE, || {
        let port = Arc::clone(&port);
        async move {
            match port.acquire(&request(vec![candidate(a, 1)])).await {
                Ok(AcquireOutcome::Granted(grant)) => Some(grant),
                _ => None,
            }
        }
    })
    .await?;
    ensure!(successor.account.token > leaked.account.token, "tokens are monotonic per account");

    // The stale holder comes back: every write carrying its old token is rejected.
    let stale = HeldLeases { admission: None, account: Some(leaked.account) };
    let renewed = port.heartbeat(boot(), &[stale], Duration::from_secs(60)).await?;
    ensure!(renewed == HeartbeatOutcome { renewed: 0, lost: 1 }, "stale heartbeat does not resurrect: {renewed:?}");
    ensure!(port.check_account_lease(&leaked.account).await? == LeaseStatus::Lost, "stale fence check fails");
    let released = port.release(&ReleaseRequest { leases: stale, feedback: None, spend: None, circuit: None }).await?;
    ensure!(released.account == LeaseStatus::Lost, "stale release reports lost: {released:?}");
    ensure!(
        port.check_account_lease(&successor.account).await? == LeaseStatus::Held,
        "the stale release did not free the successor's slot"
    );
    let busy = port.acquire(&request(vec![candidate(a, 1)])).await?;
    ensure!(matches!(busy, AcquireOutcome::NoAccount(_)), "successor still holds the only slot: {busy:?}");
    Ok(())
}

pub async fn heartbeat_keeps_held_slots_past_their_first_ttl<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let key = ClientKeyId(3);
    let mut wanted = request(vec![candidate(account(1), 1)]);
    wanted.lease_ttl = Duration::from_secs(1);
    wanted.admission = Some(limits(key, Some(1), None));
    let started = Instant::now();
    let grant = granted(port.acquire(&wanted).await?)?;
    let renewed = port.heartbeat(boot(), &[grant.held()], Duration::from_secs(60)).await?;
    ensure!(renewed == HeartbeatOutcome { renewed: 2, lost: 0 }, "admission and account slot renewed: {renewed:?}");
    ensure!(port.boots_alive(&[boot()]).await? == vec![true], "the heartbeat marks its boot alive");
    wait_until("the first TTL to pass", EXPIRY_DEADLINE, || async {
        (started.elapsed() > Duration::from_secs(2)).then_some(())
    })
    .await?;
    ensure!(port.check_account_lease(&grant.account).await? == LeaseStatus::Held, "renewed slot outlives its TTL");
    wanted.request = gateway_core::domain::RequestId::new();
    let refused = port.acquire(&wanted).await?;
    ensure!(matches!(refused, AcquireOutcome::AdmissionDenied(_)), "renewed admission slot still counts: {refused:?}");
    let released =
        port.release(&ReleaseRequest { leases: grant.held(), feedback: None, spend: None, circuit: None }).await?;
    ensure!(released.account == LeaseStatus::Held && released.admission == LeaseStatus::Held, "{released:?}");
    Ok(())
}

pub async fn release_applies_account_feedback<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let (a, b) = (account(1), account(2));
    let grant = granted(port.acquire(&request(vec![candidate(a, 5)])).await?)?;
    let feedback =
        Some(AccountFeedback::Cooldown { duration: Duration::from_secs(60), fault: Fault::CloudflareChallenge });
    let released = port.release(&ReleaseRequest { leases: grant.held(), feedback, spend: None, circuit: None }).await?;
    ensure!(released.account == LeaseStatus::Held, "{released:?}");
    let cooling = port.cooldowns(&[a, b]).await?;
    let fault = cooling[0].and_then(|c| c.fault);
    ensure!(cooling[0].is_some_and(|c| c.until > grant.now) && cooling[1].is_none(), "{cooling:?}");
    ensure!(fault == Some(Fault::CloudflareChallenge), "the feedback's fault is kept: {cooling:?}");
    let AcquireOutcome::NoAccount(none) = port.acquire(&request(vec![candidate(a, 5)])).await? else {
        bail!("a cools down")
    };
    ensure!(
        none.all_cooling_down_until() == cooling[0].map(|c| c.until),
        "engine can answer rate_limited until the deadline"
    );

    let grant = granted(port.acquire(&request(vec![candidate(b, 5)])).await?)?;
    let feedback = Some(AccountFeedback::ExcludeModel { model: "gpt-5".to_owned(), ttl: Duration::from_secs(60) });
    port.release(&ReleaseRequest { leases: grant.held(), feedback, spend: None, circuit: None }).await?;
    let outcome = port.acquire(&request(vec![candidate(b, 5)])).await?;
    let excluded = matches!(&outcome, AcquireOutcome::NoAccount(n)
        if matches!(n.verdicts[0].reason, Ineligible::ModelExcluded { .. }));
    ensure!(excluded, "b is excluded for gpt-5: {outcome:?}");
    ensure!(port.model_exclusions(b).await?.iter().any(|e| e.model == "gpt-5"), "exclusion is listed");
    port.clear_cooldown(a).await?;
    granted(port.acquire(&request(vec![candidate(a, 5)])).await?)?;
    Ok(())
}

pub async fn lease_guard_releases_on_drop_and_panic<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let a = account(1);
    let slots: Arc<dyn RequestSlots> = port.clone();
    let registry = HeldSlots::new(slots, boot());
    let grant = granted(port.acquire(&request(vec![candidate(a, 1)])).await?)?;
    // Dropped without release (cancelled request): Drop schedules the release.
    let guard = registry.guard(grant.held());
    ensure!(registry.len() == 1, "the guard is registered for the heartbeat");
    drop(guard);
    ensure!(registry.is_empty(), "a dropped guard leaves the registry at once");
    wait_until("the dropped guard's release", EXPIRY_DEADLINE, || async {
        matches!(port.check_account_lease(&grant.account).await, Ok(LeaseStatus::Lost)).then_some(())
    })
    .await?;

    // A request task that panics while holding its guard.
    let grant = granted(port.acquire(&request(vec![candidate(a, 1)])).await?)?;
    let guard = registry.guard(grant.held());
    let task = tokio::spawn(async move {
        let _guard = guard;
        panic!("request handler panicked");
    });
    ensure!(task.await.is_err_and(|e| e.is_panic()), "the task panicked");
    wait_until("the panicked guard's release", EXPIRY_DEADLINE, || async {
        matches!(port.check_account_lease(&grant.account).await, Ok(LeaseStatus::Lost)).then_some(())
    })
    .await?;

    // The normal path: explicit release, exactly once.
    let grant = granted(port.acquire(&request(vec![candidate(a, 1)])).await?)?;
    let outcome = registry.guard(grant.held()).release(None).await?;
    ensure!(outcome.account == LeaseStatus::Held, "explicit release freed the held slot: {outcome:?}");
    // Off the client's path: a tracked background release that shutdown can wait for.
    let grant = granted(port.acquire(&request(vec![candidate(a, 1)])).await?)?;
    registry.guard(grant.held()).release_later(None, None);
    ensure!(registry.wait_for_releases(EXPIRY_DEADLINE).await, "the background release finished");
    ensure!(port.check_account_lease(&grant.account).await? == LeaseStatus::Lost, "released");
    ensure!(registry.is_empty(), "nothing left to renew");
    granted(port.acquire(&request(vec![candidate(a, 1)])).await?)?;
    Ok(())
}
