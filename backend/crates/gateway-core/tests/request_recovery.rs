//! Which rows the request recovery takes: a dead boot's only once its heartbeat stayed missing,
//! never this process's own, nothing while coordination cannot be asked.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gateway_core::coordination::{CoordinationError, HeartbeatOutcome, HeldLeases, ReplicaHeartbeats};
use gateway_core::domain::{BootId, ModelRequestRecord, ReplicaName, RequestId, RequestStart, RequestUpdate};
use gateway_core::ports::{RequestLog, StorageError};
use gateway_core::request_recovery::{RecoveryPass, RequestRecovery};
use time::OffsetDateTime;

fn boot(n: u128) -> BootId {
    BootId(uuid::Uuid::from_u128(n))
}

/// Running rows per boot, and stale rows.
#[derive(Default)]
struct Rows {
    running: Mutex<HashMap<BootId, usize>>,
    stale: Mutex<usize>,
}

impl Rows {
    fn with(running: &[(BootId, usize)], stale: usize) -> Arc<Self> {
        Arc::new(Self { running: Mutex::new(running.iter().copied().collect()), stale: Mutex::new(stale) })
    }

    fn running(&self, boot: BootId) -> usize {
        self.running.lock().expect("lock").get(&boot).copied().unwrap_or(0)
    }
}

fn take(left: &mut usize, limit: u32) -> Vec<RequestId> {
    let n = (*left).min(limit as usize);
    *left -= n;
    (0..n).map(|_| RequestId::new()).collect()
}

#[async_trait::async_trait]
impl RequestLog for Rows {
    async fn record_starts(&self, starts: &[RequestStart]) -> Result<u64, StorageError> {
        Ok(starts.len() as u64)
    }

    async fn record_updates(&self, _updates: &[RequestUpdate]) -> Result<u64, StorageError> {
        Ok(0)
    }

    async fn recover_stale(&self, _now: OffsetDateTime, limit: u32) -> Result<Vec<RequestId>, StorageError> {
        Ok(take(&mut self.stale.lock().expect("lock"), limit))
    }

    async fn running_boots(&self, _limit: u32) -> Result<Vec<BootId>, StorageError> {
        let running = self.running.lock().expect("lock");
        Ok(running.iter().filter(|(_, n)| **n > 0).map(|(boot, _)| *boot).collect())
    }

    async fn recover_boot(
        &self,
        boot: BootId,
        _now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        Ok(take(self.running.lock().expect("lock").entry(boot).or_default(), limit))
    }

    async fn delete_requests_before(&self, _cutoff: OffsetDateTime, _limit: u32) -> Result<u64, StorageError> {
        Ok(0)
    }

    async fn get_request(&self, id: RequestId) -> Result<ModelRequestRecord, StorageError> {
        Err(StorageError::not_found("request", id))
    }
}

/// Which boots have a live heartbeat; `down` makes every call fail as Redis being unreachable.
#[derive(Default)]
struct Beats {
    alive: Mutex<HashSet<BootId>>,
    down: Mutex<bool>,
}

impl Beats {
    fn set(&self, boot: BootId, alive: bool) {
        let mut set = self.alive.lock().expect("lock");
        if alive {
            set.insert(boot);
        } else {
            set.remove(&boot);
        }
    }
}

#[async_trait::async_trait]
impl ReplicaHeartbeats for Beats {
    async fn heartbeat(
        &self,
        boot: BootId,
        _: &[HeldLeases],
        _: Duration,
    ) -> Result<HeartbeatOutcome, CoordinationError> {
        self.set(boot, true);
        Ok(HeartbeatOutcome::default())
    }

    async fn claim_replica(&self, _: &ReplicaName, _: BootId) -> Result<Option<BootId>, CoordinationError> {
        Ok(None)
    }

    async fn release_boot(&self, boot: BootId) -> Result<u64, CoordinationError> {
        self.set(boot, false);
        Ok(0)
    }

    async fn boots_alive(&self, boots: &[BootId]) -> Result<Vec<bool>, CoordinationError> {
        if *self.down.lock().expect("lock") {
            return Err(CoordinationError::Unavailable("connection refused".to_owned()));
        }
        let alive = self.alive.lock().expect("lock");
        Ok(boots.iter().map(|boot| alive.contains(boot)).collect())
    }
}

const OWN: u128 = 1;
const LIVE: u128 = 2;
const DEAD: u128 = 3;

fn world(confirm_after: Duration) -> (Arc<Rows>, Arc<Beats>, RequestRecovery) {
    let rows = Rows::with(&[(boot(OWN), 2), (boot(LIVE), 1), (boot(DEAD), 3)], 0);
    let beats = Arc::new(Beats::default());
    beats.set(boot(LIVE), true);
    let recovery = RequestRecovery::new(rows.clone(), beats.clone(), boot(OWN), confirm_after);
    (rows, beats, recovery)
}

#[tokio::test]
async fn a_dead_boots_rows_are_recovered_once_its_heartbeat_stayed_missing() {
    let (rows, _beats, recovery) = world(Duration::from_millis(50));
    let first = recovery.tick().await.expect("tick");
    assert_eq!(first, RecoveryPass::default(), "a boot seen missing once is only suspected");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while rows.running(boot(DEAD)) > 0 {
        assert!(tokio::time::Instant::now() < deadline, "the dead boot's rows were never recovered");
        tokio::time::sleep(Duration::from_millis(20)).await;
        recovery.tick().await.expect("tick");
    }
    assert_eq!(rows.running(boot(OWN)), 2, "this process's own rows are never taken");
    assert_eq!(rows.running(boot(LIVE)), 1, "a live boot's rows run on");
}

#[tokio::test]
async fn a_boot_whose_heartbeat_comes_back_is_not_recovered() {
    let (rows, beats, recovery) = world(Duration::ZERO);
    beats.set(boot(DEAD), true);
    assert_eq!(recovery.tick().await.expect("tick").replica_lost, 0);
    // Its heartbeat key was lost (Redis lost its data) and not yet re-created.
    let (rows2, beats2, patient) = world(Duration::from_secs(3600));
    assert_eq!(patient.tick().await.expect("tick").replica_lost, 0, "suspected, not confirmed");
    beats2.set(boot(DEAD), true);
    assert_eq!(patient.tick().await.expect("tick").replica_lost, 0);
    assert_eq!(rows2.running(boot(DEAD)), 3);
    assert_eq!(rows.running(boot(DEAD)), 3);
}

#[tokio::test]
async fn nothing_is_declared_dead_while_coordination_cannot_be_asked() {
    let (rows, beats, recovery) = world(Duration::ZERO);
    *rows.stale.lock().expect("lock") = 1200;
    *beats.down.lock().expect("lock") = true;
    let pass = recovery.tick().await.expect("tick");
    assert_eq!(pass, RecoveryPass { replica_lost: 0, stale: 1200 }, "stale rows still go, in batches");
    assert_eq!(rows.running(boot(DEAD)), 3);
    *beats.down.lock().expect("lock") = false;
    assert_eq!(recovery.tick().await.expect("tick").replica_lost, 3);
}

#[tokio::test]
async fn a_predecessor_is_recovered_at_once_in_batches() {
    let rows = Rows::with(&[(boot(DEAD), 1234)], 0);
    let recovery = RequestRecovery::new(rows.clone(), Arc::new(Beats::default()), boot(OWN), Duration::from_secs(3600));
    assert_eq!(recovery.recover_boot(boot(DEAD)).await.expect("recover"), 1234);
    assert_eq!(rows.running(boot(DEAD)), 0);
}
