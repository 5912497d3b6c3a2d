//! Contract: the acquire decision (strategy, cap, admission, reasons) under concurrency.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{bail, ensure};
use gateway_core::coordination::{AcquireOutcome, AdmissionDenial, Coordination, Ineligible};
use gateway_core::domain::ClientKeyId;
use gateway_core::fault::Fault;

use super::fixtures::{account, candidate, granted, limits, release, request};

/// 200 tasks race for one account with cap 3: never more than 3 hold a slot at once.
pub async fn racing_tasks_never_exceed_the_cap<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    const TASKS: usize = 200;
    const CAP: u32 = 3;
    let held = Arc::new(AtomicUsize::new(0));
    let max_held = Arc::new(AtomicUsize::new(0));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..TASKS {
        let (port, held, max_held) = (Arc::clone(&port), Arc::clone(&held), Arc::clone(&max_held));
        tasks.spawn(async move {
            let wanted = request(vec![candidate(account(7), CAP)]);
            let grant = loop {
                match port.acquire(&wanted).await? {
                    AcquireOutcome::Granted(grant) => break grant,
                    AcquireOutcome::NoAccount(_) => tokio::task::yield_now().await,
                    other => bail!("unexpected {other:?}"),
                }
            };
            let now_held = held.fetch_add(1, Ordering::SeqCst) + 1;
            max_held.fetch_max(now_held, Ordering::SeqCst);
            ensure!(grant.in_flight <= CAP, "store counted {} in flight", grant.in_flight);
            for _ in 0..4 {
                tokio::task::yield_now().await;
            }
            held.fetch_sub(1, Ordering::SeqCst);
            release(port.as_ref(), &grant).await
        });
    }
    let mut finished = 0;
    while let Some(result) = tasks.join_next().await {
        result??;
        finished += 1;
    }
    let max = max_held.load(Ordering::SeqCst);
    ensure!(finished == TASKS, "all tasks got a slot");
    ensure!((1..=3).contains(&max), "at most {CAP} slots held at once, saw {max}");
    Ok(())
}

pub async fn admission_limits_concurrency_and_rate<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let key = ClientKeyId(11);
    let limited = |concurrency, rpm| {
        let mut wanted = request(vec![candidate(account(1), 100)]);
        wanted.admission = Some(limits(key, concurrency, rpm));
        wanted
    };
    let one = granted(port.acquire(&limited(Some(2), None)).await?)?;
    ensure!(one.admission.is_some(), "a concurrency-limited key holds an admission lease");
    let two = granted(port.acquire(&limited(Some(2), None)).await?)?;
    match port.acquire(&limited(Some(2), None)).await? {
        AcquireOutcome::AdmissionDenied(AdmissionDenial::Concurrency { limit: 2, in_flight: 2 }) => {}
        other => bail!("third concurrent request must be refused: {other:?}"),
    }
    release(port.as_ref(), &one).await?;
    let three = granted(port.acquire(&limited(Some(2), None)).await?)?;
    release(port.as_ref(), &two).await?;
    release(port.as_ref(), &three).await?;

    // Requests per minute: 3 admitted (4 so far in the window count only rpm-limited ones).
    let rate_key = ClientKeyId(12);
    let rated = || {
        let mut wanted = request(vec![candidate(account(1), 100)]);
        wanted.admission = Some(limits(rate_key, None, Some(3)));
        wanted
    };
    for _ in 0..3 {
        let grant = granted(port.acquire(&rated()).await?)?;
        ensure!(grant.admission.is_none(), "no concurrency limit, no admission lease");
        release(port.as_ref(), &grant).await?;
    }
    match port.acquire(&rated()).await? {
        AcquireOutcome::AdmissionDenied(AdmissionDenial::RequestsPerMinute { limit: 3, retry_after }) => {
            ensure!(retry_after > Duration::ZERO && retry_after <= Duration::from_secs(60), "retry {retry_after:?}");
        }
        other => bail!("fourth request in a minute must be refused: {other:?}"),
    }
    Ok(())
}

/// A request that gets no account consumes no admission unit; one refused by admission takes
/// no account slot.
pub async fn refused_acquire_records_nothing<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let a = account(3);
    let held = granted(port.acquire(&request(vec![candidate(a, 1)])).await?)?;
    let mut wanted = request(vec![candidate(a, 1)]);
    wanted.admission = Some(limits(ClientKeyId(5), Some(1), Some(1)));
    for _ in 0..3 {
        let outcome = port.acquire(&wanted).await?;
        ensure!(matches!(outcome, AcquireOutcome::NoAccount(_)), "account at cap: {outcome:?}");
    }
    release(port.as_ref(), &held).await?;
    let grant = granted(port.acquire(&wanted).await?)?;
    ensure!(grant.in_flight == 1, "the refused attempts took no slot");

    let mut refused = request(vec![candidate(account(4), 5)]);
    refused.admission = wanted.admission;
    let outcome = port.acquire(&refused).await?;
    ensure!(matches!(outcome, AcquireOutcome::AdmissionDenied(_)), "admission refuses: {outcome:?}");
    let after = granted(port.acquire(&request(vec![candidate(account(4), 5)])).await?)?;
    ensure!(after.in_flight == 1, "the refused request took no account slot: {after:?}");
    Ok(())
}

pub async fn no_account_reports_each_reason<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let (cooling, excluded, full, pacing) = (account(1), account(2), account(3), account(4));
    port.set_cooldown(cooling, Duration::from_secs(60), Fault::UsageLimitReached).await?;
    port.exclude_model(excluded, "gpt-5", Duration::from_secs(60)).await?;
    granted(port.acquire(&request(vec![candidate(full, 1)])).await?)?;
    let mut paced = candidate(pacing, 5);
    paced.request_interval = Duration::from_secs(30);
    granted(port.acquire(&request(vec![paced])).await?)?;

    let wanted = request(vec![candidate(cooling, 5), candidate(excluded, 5), candidate(full, 1), paced]);
    let AcquireOutcome::NoAccount(none) = port.acquire(&wanted).await? else { bail!("nothing is eligible") };
    let reasons: Vec<_> = none.verdicts.iter().map(|v| (v.account, v.reason)).collect();
    ensure!(reasons.len() == 4, "one verdict per candidate: {reasons:?}");
    ensure!(matches!(reasons[0], (a, Ineligible::CoolingDown { until }) if a == cooling && until > none.now));
    ensure!(matches!(reasons[1], (a, Ineligible::ModelExcluded { .. }) if a == excluded));
    ensure!(matches!(reasons[2], (a, Ineligible::AtCap { in_flight: 1, cap: 1 }) if a == full));
    let wait = none.shortest_interval_wait();
    ensure!(wait.is_some_and(|w| w > Duration::from_secs(25) && w <= Duration::from_secs(30)), "wait {wait:?}");
    ensure!(none.all_cooling_down_until().is_none(), "not all candidates are cooling down");

    let mut other_model = request(vec![candidate(excluded, 5)]);
    other_model.model = "gpt-5-mini".to_owned();
    granted(port.acquire(&other_model).await?)?;
    Ok(())
}

/// `requestIntervalMs` spaces request starts on one account, whoever starts them.
pub async fn request_interval_spaces_starts<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let mut paced = candidate(account(1), 10);
    paced.request_interval = Duration::from_millis(300);
    let first = granted(port.acquire(&request(vec![paced])).await?)?;
    let AcquireOutcome::NoAccount(none) = port.acquire(&request(vec![paced])).await? else {
        bail!("the second start inside the interval must wait")
    };
    let wait = none.shortest_interval_wait();
    ensure!(wait.is_some_and(|w| w > Duration::ZERO && w <= Duration::from_millis(300)), "wait {wait:?}");
    let second = test_support::wait_until("the interval to pass", super::fixtures::EXPIRY_DEADLINE, || async {
        match port.acquire(&request(vec![paced])).await {
            Ok(AcquireOutcome::Granted(grant)) => Some(grant),
            _ => None,
        }
    })
    .await?;
    ensure!(second.now.0 >= first.now.0 + 300, "starts are at least 300 ms apart: {first:?} {second:?}");
    Ok(())
}
