//! Contract: fenced exclusive leases and once-per-period leases across replicas.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, ensure};
use gateway_core::coordination::{Coordination, LeaseStatus, PeriodicLeader, ReplicaId};
use test_support::wait_until;

use super::fixtures::EXPIRY_DEADLINE;

pub async fn leaked_lease_expires_and_stale_holder_is_fenced<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let (first, second) = (ReplicaId::random(), ReplicaId::random());
    let Some(leaked) = port.try_acquire_lease("refresh:account:7", &first, Duration::from_millis(300)).await? else {
        bail!("a free lease is granted")
    };
    ensure!(
        port.try_acquire_lease("refresh:account:7", &second, Duration::from_secs(30)).await?.is_none(),
        "exclusive"
    );
    ensure!(port.check_lease(&leaked).await? == LeaseStatus::Held, "held");
    let successor = wait_until("the leaked lease to expire", EXPIRY_DEADLINE, || async {
        port.try_acquire_lease("refresh:account:7", &second, Duration::from_secs(30)).await.ok().flatten()
    })
    .await?;
    ensure!(successor.token > leaked.token, "the fencing token grows: {} > {}", successor.token, leaked.token);
    ensure!(port.check_lease(&leaked).await? == LeaseStatus::Lost, "the stale holder's fence check fails");
    ensure!(port.renew_lease(&leaked, Duration::from_secs(30)).await? == LeaseStatus::Lost, "stale renew rejected");
    ensure!(port.release_lease(&leaked).await? == LeaseStatus::Lost, "stale release rejected");
    ensure!(port.check_lease(&successor).await? == LeaseStatus::Held, "the successor is untouched");
    ensure!(port.renew_lease(&successor, Duration::from_secs(30)).await? == LeaseStatus::Held, "renewed");
    ensure!(port.release_lease(&successor).await? == LeaseStatus::Held, "released");
    let next = port.try_acquire_lease("refresh:account:7", &first, Duration::from_secs(30)).await?;
    ensure!(next.is_some_and(|lease| lease.token > successor.token), "free again, token still grows");
    Ok(())
}

pub async fn period_lease_is_won_once_among_many<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    // A one-hour period: all claims fall into one period (barring an hour boundary, where the
    // claims split over two consecutive periods and each is still won once).
    let period = Duration::from_secs(3600);
    let mut racers = tokio::task::JoinSet::new();
    for _ in 0..12 {
        let port = Arc::clone(&port);
        racers.spawn(async move { port.claim_period("retention", period, &ReplicaId::random()).await });
    }
    let mut wins: BTreeMap<u64, usize> = BTreeMap::new();
    while let Some(result) = racers.join_next().await {
        let claim = result??;
        let entry = wins.entry(claim.index).or_default();
        *entry += usize::from(claim.token.is_some());
        ensure!(claim.next_in <= period, "next period within one period: {:?}", claim.next_in);
    }
    ensure!(wins.values().all(|won| *won == 1), "each period won exactly once: {wins:?}");
    Ok(())
}

/// Two replicas polling a 1 s periodic task for 10 periods: every period runs exactly once.
pub async fn two_replicas_run_each_period_exactly_once<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    const PERIODS: u64 = 10;
    let period = Duration::from_secs(1);
    let runs: Arc<Mutex<BTreeMap<u64, Vec<usize>>>> = Arc::default();
    let mut replicas = tokio::task::JoinSet::new();
    for replica in 0..2 {
        let mut leader = PeriodicLeader::new(port.clone(), "backup-schedule", period, ReplicaId::random());
        let runs = Arc::clone(&runs);
        replicas.spawn(async move {
            loop {
                let decision = leader.poll().await?;
                let (first, last) = {
                    let mut runs = runs.lock().map_err(|_| anyhow::anyhow!("run log poisoned"))?;
                    if let Some(index) = decision.run {
                        runs.entry(index).or_default().push(replica);
                    }
                    (runs.keys().next().copied(), runs.keys().next_back().copied())
                };
                if let (Some(first), Some(last)) = (first, last)
                    && last >= first + PERIODS
                {
                    return Ok::<_, anyhow::Error>(());
                }
                // Poll often, so both replicas race at every period boundary.
                tokio::time::sleep(decision.next_in.min(Duration::from_millis(20))).await;
            }
        });
    }
    let deadline = period * u32::try_from(PERIODS + 6)?;
    tokio::time::timeout(deadline, async {
        while let Some(result) = replicas.join_next().await {
            result??;
        }
        Ok::<_, anyhow::Error>(())
    })
    .await??;
    let runs = runs.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
    let indices: Vec<u64> = runs.keys().copied().collect();
    ensure!(indices.len() as u64 >= PERIODS, "at least {PERIODS} periods ran: {indices:?}");
    ensure!(indices.windows(2).all(|w| w[1] == w[0] + 1), "no period was skipped: {indices:?}");
    ensure!(runs.values().all(|replicas| replicas.len() == 1), "each period ran exactly once: {runs:?}");
    Ok(())
}
