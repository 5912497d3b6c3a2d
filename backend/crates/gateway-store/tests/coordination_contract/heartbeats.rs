//! Contract: replica heartbeats — a boot owns the slots it acquired, keeps them (and itself)
//! alive with one heartbeat per period, and a successor frees them all at once.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::{
    AcquireOutcome, Coordination, CoordinationErrorKind, HeldLeases, LeaseStatus, MAX_HEARTBEAT_LEASES,
};
use gateway_core::domain::{BootId, ClientKeyId, ReplicaName};
use test_support::wait_until;

use super::fixtures::{EXPIRY_DEADLINE, account, candidate, granted, limits, release, request};

fn boot(n: u128) -> BootId {
    BootId(uuid::Uuid::from_u128(n))
}

pub async fn release_boot_frees_every_slot_of_a_dead_boot<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let (a, b, key) = (account(1), account(2), ClientKeyId(7));
    let (dead, live) = (boot(1), boot(2));
    let acquire_as = |owner: BootId, on| {
        let port = Arc::clone(&port);
        async move {
            let mut wanted = request(vec![candidate(on, 2)]);
            wanted.owner = owner;
            wanted.admission = Some(limits(key, Some(3), None));
            granted(port.acquire(&wanted).await?)
        }
    };
    let first = acquire_as(dead, a).await?;
    let second = acquire_as(dead, a).await?;
    let finished = acquire_as(dead, b).await?;
    release(port.as_ref(), &finished).await?;
    let other = acquire_as(live, b).await?;
    let full = port.acquire(&request(vec![candidate(a, 2)])).await?;
    ensure!(matches!(full, AcquireOutcome::NoAccount(_)), "a is at its cap: {full:?}");

    // Two account slots and two admission slots were still live; the released one is not counted.
    let freed = port.release_boot(dead).await?;
    ensure!(freed == 4, "freed {freed}");
    for grant in [&first, &second] {
        ensure!(port.check_account_lease(&grant.account).await? == LeaseStatus::Lost, "{grant:?} freed");
    }
    ensure!(port.check_account_lease(&other.account).await? == LeaseStatus::Held, "another boot's slot is kept");
    ensure!(port.boots_alive(&[dead, live]).await? == vec![false, false], "no heartbeat yet");
    // The cap and the key's concurrency are free again (the live boot holds one admission slot).
    acquire_as(live, a).await?;
    acquire_as(live, a).await?;
    ensure!(port.release_boot(dead).await? == 0, "releasing twice frees nothing");
    Ok(())
}

pub async fn a_boot_is_alive_while_its_heartbeat_lasts<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let (first, second) = (boot(1), boot(2));
    ensure!(port.boots_alive(&[first, second]).await? == vec![false, false], "unknown boots are not alive");
    let outcome = port.heartbeat(first, &[], Duration::from_secs(2)).await?;
    ensure!(outcome.renewed == 0 && outcome.lost == 0, "{outcome:?}");
    ensure!(port.boots_alive(&[first, second]).await? == vec![true, false], "the heartbeat marks one boot alive");
    wait_until("the heartbeat to lapse", EXPIRY_DEADLINE, || async {
        matches!(port.boots_alive(&[first]).await.as_deref(), Ok([false])).then_some(())
    })
    .await?;
    ensure!(port.boots_alive(&[]).await?.is_empty(), "no boots asked, none answered");
    Ok(())
}

pub async fn slots_not_renewed_by_a_heartbeat_expire<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let a = account(1);
    let mut short = request(vec![candidate(a, 2)]);
    short.lease_ttl = Duration::from_secs(2);
    let kept = granted(port.acquire(&short).await?)?;
    short.request = gateway_core::domain::RequestId::new();
    let leaked = granted(port.acquire(&short).await?)?;
    // The process still holds `kept` but forgot `leaked`: only `kept` is in its heartbeats.
    let renewed = port.heartbeat(short.owner, &[kept.held()], Duration::from_secs(60)).await?;
    ensure!(renewed.renewed == 1, "{renewed:?}");
    wait_until("the unrenewed slot to expire", EXPIRY_DEADLINE, || async {
        matches!(port.check_account_lease(&leaked.account).await, Ok(LeaseStatus::Lost)).then_some(())
    })
    .await?;
    ensure!(port.check_account_lease(&kept.account).await? == LeaseStatus::Held, "the renewed slot lives on");
    Ok(())
}

pub async fn claim_replica_names_the_predecessor<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let (name, other) = (
        ReplicaName::parse("host-a:8080").map_err(anyhow::Error::msg)?,
        ReplicaName::parse("host-b:8080").map_err(anyhow::Error::msg)?,
    );
    ensure!(port.claim_replica(&name, boot(1)).await?.is_none(), "a first start has no predecessor");
    ensure!(port.claim_replica(&name, boot(1)).await?.is_none(), "claiming again is not a restart");
    ensure!(port.claim_replica(&name, boot(2)).await? == Some(boot(1)), "the restart learns its predecessor");
    ensure!(port.claim_replica(&name, boot(3)).await? == Some(boot(2)), "only the last boot is kept");
    ensure!(port.claim_replica(&other, boot(4)).await?.is_none(), "replicas are independent");
    Ok(())
}

pub async fn heartbeat_refuses_oversized_batches<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let leases = vec![HeldLeases::default(); MAX_HEARTBEAT_LEASES + 1];
    let refused = port.heartbeat(boot(1), &leases, Duration::from_secs(1)).await;
    ensure!(
        refused.as_ref().is_err_and(|e| e.kind() == CoordinationErrorKind::Internal),
        "more than {MAX_HEARTBEAT_LEASES} leases are invalid input: {refused:?}"
    );
    let zero = port.heartbeat(boot(1), &[], Duration::ZERO).await;
    ensure!(zero.is_err(), "a zero TTL is invalid input");
    Ok(())
}
