//! Two replicas (two refreshers with their own memory, one Redis, one database) due to refresh
//! the same account make one upstream refresh; the data plane's 401 recovery joins the same
//! single flight.

use std::sync::Arc;
use std::time::Duration;

use gateway_core::coordination::{PeriodicLeader, ReplicaId};
use gateway_core::credential_refresh::{RefreshError, RefreshOutcome, RefreshTrigger};
use gateway_core::ports::CredentialStore;
use gateway_core::provider::Provider;
use test_support::wait_until;
use tokio_util::sync::CancellationToken;
use upstream_sim::AccountSpec;

use super::{facts, make_due};
use crate::support::World;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_due_at_once_refresh_upstream_once() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    make_due(&world, account).await;
    let seen = world.store.read_credential(account).await.expect("read").revision;
    let (a, b) = (world.refresher(world.store.clone()).await, world.refresher(world.store.clone()).await);
    let trigger = RefreshTrigger::Due { seen };
    let (ra, rb) = tokio::join!(a.refresh(account, trigger), b.refresh(account, trigger));
    assert_eq!(world.token_calls(), 1, "one upstream refresh");
    let renewed = [&ra, &rb].iter().filter(|r| matches!(r, Ok(RefreshOutcome::Renewed(_)))).count();
    assert_eq!(renewed, 1, "{ra:?} / {rb:?}");
    for other in [&ra, &rb].into_iter().filter(|r| !matches!(r, Ok(RefreshOutcome::Renewed(_)))) {
        assert!(
            matches!(other, Ok(RefreshOutcome::NotDue) | Err(RefreshError::InProgressElsewhere)),
            "the other replica skips: {other:?}"
        );
    }
    let (revision, state, ..) = facts(&world, account).await;
    assert_eq!((revision, state.as_str()), (seen.0 + 1, "active"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_worker_loops_refresh_a_due_account_once() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    make_due(&world, account).await;
    let stop = CancellationToken::new();
    let mut loops = Vec::new();
    for _ in 0..2 {
        let refresher = world.refresher(world.store.clone()).await;
        let leader =
            PeriodicLeader::new(world.redis(), "credential-refresh", Duration::from_millis(300), ReplicaId::random());
        loops.push(tokio::spawn(refresher.run_worker(leader, 10, stop.clone())));
    }
    wait_until("the account to be refreshed", Duration::from_secs(10), || async {
        (facts(&world, account).await.0 > 1).then_some(())
    })
    .await
    .expect("refreshed");
    // Three more periods pass (asserting an absence needs the time to pass): the next refresh
    // is scheduled ahead of expiry, not now.
    let calls_after = world.token_calls();
    tokio::time::sleep(Duration::from_millis(900)).await;
    stop.cancel();
    for handle in loops {
        handle.await.expect("worker loop ends");
    }
    assert_eq!(calls_after, 1);
    assert_eq!(world.token_calls(), 1, "one upstream refresh across both replicas");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_recovery_and_another_replica_share_one_refresh() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    let seen = world.store.read_credential(account).await.expect("read").revision;
    let refresher_a = world.refresher(world.store.clone()).await;
    let provider_a = Arc::new(world.provider().with_refresher(refresher_a));
    let refresher_b = world.refresher(world.store.clone()).await;
    let (recovered, other) = tokio::join!(
        provider_a.recover_credential(account),
        refresher_b.refresh(account, RefreshTrigger::Unauthorized { seen })
    );
    recovered.expect("the data plane recovers");
    assert!(matches!(other, Ok(RefreshOutcome::Renewed(_) | RefreshOutcome::Newer(_))), "{other:?}");
    assert_eq!(world.token_calls(), 1, "one upstream refresh");
    assert_eq!(facts(&world, account).await.0, seen.0 + 1);
}

#[tokio::test]
async fn a_recovery_for_an_old_revision_uses_the_stored_newer_credential() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    let seen = world.store.read_credential(account).await.expect("read").revision;
    let refresher = world.refresher(world.store.clone()).await;
    assert!(matches!(refresher.refresh(account, RefreshTrigger::Manual).await, Ok(RefreshOutcome::Renewed(_))));
    // A request that failed with the credential of `seen` asks again: nothing is spent.
    let again = refresher.refresh(account, RefreshTrigger::Unauthorized { seen }).await;
    assert!(matches!(again, Ok(RefreshOutcome::Newer(ref c)) if c.revision.0 == seen.0 + 1), "{again:?}");
    assert_eq!(world.token_calls(), 1);
}
