//! Fault injection: the database refuses the write right after the upstream rotated the
//! refresh token. The rotated pair is held and its write retried until it succeeds; meanwhile
//! nothing spends the old refresh token again; afterwards the account works with the stored
//! pair.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::{PeriodicLeader, ReplicaId};
use gateway_core::credential_refresh::{
    CredentialRefresher, RefreshError, RefreshOutcome, RefreshPorts, RefreshSettings, RefreshTrigger,
};
use gateway_core::domain::{AccountId, CredentialFacts, CredentialRevision, StoredCredential};
use gateway_core::ports::{CredentialStore, CredentialWrite, RefreshDue, StorageError};
use gateway_core::quota_probe::QuotaProbe;
use test_support::wait_until;
use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;
use upstream_sim::AccountSpec;

use super::{facts, make_due};
use crate::support::World;

/// The real store, except that the next `failures` credential writes fail as `unavailable`.
struct FlakyStore {
    inner: Arc<dyn CredentialStore>,
    failures: AtomicUsize,
    attempts: AtomicUsize,
}

impl FlakyStore {
    fn new(inner: Arc<dyn CredentialStore>, failures: usize) -> Arc<Self> {
        Arc::new(Self { inner, failures: AtomicUsize::new(failures), attempts: AtomicUsize::new(0) })
    }
}

#[async_trait]
impl CredentialStore for FlakyStore {
    async fn read_credential(&self, account: AccountId) -> Result<StoredCredential, StorageError> {
        self.inner.read_credential(account).await
    }

    async fn write_credential(
        &self,
        account: AccountId,
        expected: CredentialRevision,
        write: CredentialWrite,
    ) -> Result<CredentialRevision, StorageError> {
        self.attempts.fetch_add(1, Ordering::SeqCst);
        let fail = self.failures.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok();
        if fail {
            return Err(StorageError::Unavailable("injected: the database is down".to_owned()));
        }
        self.inner.write_credential(account, expected, write).await
    }

    async fn write_credential_facts(
        &self,
        account: AccountId,
        expected: CredentialRevision,
        facts: CredentialFacts,
    ) -> Result<(), StorageError> {
        self.inner.write_credential_facts(account, expected, facts).await
    }

    async fn due_for_refresh(&self, now: OffsetDateTime, limit: u32) -> Result<Vec<RefreshDue>, StorageError> {
        self.inner.due_for_refresh(now, limit).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotated_tokens_are_held_and_written_when_the_database_returns() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    let flaky = FlakyStore::new(world.store.clone(), 3);
    let replica_a = world.refresher(flaky.clone()).await;

    let first = replica_a.refresh(account, RefreshTrigger::Manual).await;
    assert!(matches!(first, Err(RefreshError::WritePending)), "{first:?}");
    assert_eq!(world.token_calls(), 1, "the upstream rotated once");
    assert!(replica_a.has_held_writes());

    // Asked again while the database is still down: the held write is retried, the spent
    // refresh token is not sent again.
    let second = replica_a.refresh(account, RefreshTrigger::Manual).await;
    assert!(matches!(second, Err(RefreshError::WritePending)), "{second:?}");
    // Another replica cannot refresh either: the lease is kept while the pair is held.
    let ports = RefreshPorts { accounts: world.store.clone(), credentials: world.store.clone(), leases: world.redis() };
    let impatient = RefreshSettings {
        wait_for_other: Duration::from_millis(300),
        wait_poll: Duration::from_millis(20),
        ..RefreshSettings::default()
    };
    let replica_b = CredentialRefresher::new(
        ports,
        ReplicaId::random(),
        vec![Arc::new(world.provider().renewer())],
        world.snapshots().await,
        impatient,
    );
    let other = replica_b.refresh(account, RefreshTrigger::Manual).await;
    assert!(matches!(other, Err(RefreshError::InProgressElsewhere)), "{other:?}");
    assert_eq!(world.token_calls(), 1, "nobody spent the old refresh token again");
    assert_eq!(facts(&world, account).await.0, 1, "nothing stored yet");

    // The database comes back: the retries go through.
    replica_a.flush_held().await; // third injected failure
    assert!(replica_a.has_held_writes());
    replica_a.flush_held().await;
    assert!(!replica_a.has_held_writes());
    assert_eq!(flaky.attempts.load(Ordering::SeqCst), 4);
    let (revision, state, ..) = facts(&world, account).await;
    assert_eq!((revision, state.as_str()), (2, "active"));
    assert_eq!(world.token_calls(), 1);

    // The stored pair is the rotated one: its access token works, and its refresh token is
    // live (a spent one would answer `refresh_token_reused`).
    let provider = world.provider();
    let snapshots = world.snapshots().await;
    let entry = snapshots.current().account(account).cloned().expect("account in the snapshot");
    provider.probe_quota(&entry).await.expect("the stored access token works");
    let refreshed = replica_b.refresh(account, RefreshTrigger::Manual).await;
    assert!(matches!(refreshed, Ok(RefreshOutcome::Renewed(_))), "{refreshed:?}");
    assert_eq!(world.token_calls(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_retries_a_held_write_until_it_succeeds() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    make_due(&world, account).await;
    let flaky = FlakyStore::new(world.store.clone(), 5);
    let ports = RefreshPorts { accounts: world.store.clone(), credentials: flaky.clone(), leases: world.redis() };
    let settings = RefreshSettings { held_retry: Duration::from_millis(20), ..RefreshSettings::default() };
    let refresher = Arc::new(CredentialRefresher::new(
        ports,
        ReplicaId::random(),
        vec![Arc::new(world.provider().renewer())],
        world.snapshots().await,
        settings,
    ));
    let leader = PeriodicLeader::new(world.redis(), "credential-refresh", Duration::from_secs(60), ReplicaId::random());
    let stop = CancellationToken::new();
    let worker = tokio::spawn(refresher.clone().run_worker(leader, 10, stop.clone()));
    wait_until("the held write to be stored", Duration::from_secs(10), || async {
        (facts(&world, account).await.0 == 2).then_some(())
    })
    .await
    .expect("stored after the injected failures");
    stop.cancel();
    worker.await.expect("worker ends");
    assert_eq!(flaky.attempts.load(Ordering::SeqCst), 6, "five failures, then the write");
    assert_eq!(world.token_calls(), 1, "one rotation");
    assert!(!refresher.has_held_writes());
}
