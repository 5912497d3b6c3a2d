//! Which rows the request recovery takes: a dead boot's only once its heartbeat stayed missing,
//! never this process's own, nothing while coordination cannot be asked; at a restart, every
//! earlier boot of the same replica name that is gone, at once, and never a live one.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gateway_core::coordination::{CoordinationError, HeartbeatOutcome, HeldLeases, ReplicaHeartbeats};
use gateway_core::domain::{BootId, ModelRequestRecord, ReplicaName, RequestId, RequestStart, RequestUpdate};
use gateway_core::ports::{RequestLog, StorageError};
use gateway_core::request_recovery::{RecoveryPass, RequestRecovery, TakeOver};
use time::OffsetDateTime;

fn boot(n: u128) -> BootId {
    BootId(uuid::Uuid::from_u128(n))
}

/// Running rows per boot, the replica name each boot ran under, rows closed as
/// `replica_restarted` per boot, and stale rows.
#[derive(Default)]
struct Rows {
    running: Mutex<HashMap<BootId, usize>>,
    names: Mutex<HashMap<BootId, ReplicaName>>,
    restarted: Mutex<HashMap<BootId, usize>>,
    stale: Mutex<usize>,
}

impl Rows {
    fn with(running: &[(BootId, usize)], stale: usize) -> Arc<Self> {
        Arc::new(Self {
            running: Mutex::new(running.iter().copied().collect()),
            stale: Mutex::new(stale),
            ..Self::default()
        })
    }

    /// Rows under replica names: (boot, name, running rows).
    fn named(rows: &[(BootId, &str, usize)]) -> Arc<Self> {
        let this = Self::with(&rows.iter().map(|(boot, _, n)| (*boot, *n)).collect::<Vec<_>>(), 0);
        *this.names.lock().expect("lock") = rows.iter().map(|(boot, name, _)| (*boot, replica(name))).collect();
        this
    }

    fn running(&self, boot: BootId) -> usize {
        self.running.lock().expect("lock").get(&boot).copied().unwrap_or(0)
    }

    fn restarted(&self, boot: BootId) -> usize {
        self.restarted.lock().expect("lock").get(&boot).copied().unwrap_or(0)
    }
}

fn replica(name: &str) -> ReplicaName {
    ReplicaName::parse(name).expect("valid name")
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

    async fn running_boots_of(&self, name: &ReplicaName, _limit: u32) -> Result<Vec<BootId>, StorageError> {
        let names = self.names.lock().expect("lock");
        let running = self.running.lock().expect("lock");
        Ok(running.iter().filter(|(boot, n)| **n > 0 && names.get(boot) == Some(name)).map(|(boot, _)| *boot).collect())
    }

    async fn recover_restarted_boot(
        &self,
        name: &ReplicaName,
        boot: BootId,
        _now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        if self.names.lock().expect("lock").get(&boot) != Some(name) {
            return Ok(Vec::new());
        }
        let taken = take(self.running.lock().expect("lock").entry(boot).or_default(), limit);
        *self.restarted.lock().expect("lock").entry(boot).or_default() += taken.len();
        Ok(taken)
    }

    async fn delete_requests_before(&self, _cutoff: OffsetDateTime, _limit: u32) -> Result<u64, StorageError> {
        Ok(0)
    }

    async fn get_request(&self, id: RequestId) -> Result<ModelRequestRecord, StorageError> {
        Err(StorageError::not_found("request", id))
    }
}

/// Which boots have a live heartbeat, the boot recorded as the replica's previous one, the
/// boots released; `down` makes every call fail as Redis being unreachable.
#[derive(Default)]
struct Beats {
    alive: Mutex<HashSet<BootId>>,
    recorded: Mutex<Option<BootId>>,
    released: Mutex<Vec<BootId>>,
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

    async fn claim_replica(&self, _: &ReplicaName, boot: BootId) -> Result<Option<BootId>, CoordinationError> {
        if *self.down.lock().expect("lock") {
            return Err(CoordinationError::Unavailable("connection refused".to_owned()));
        }
        Ok(self.recorded.lock().expect("lock").replace(boot))
    }

    async fn release_boot(&self, boot: BootId) -> Result<u64, CoordinationError> {
        self.set(boot, false);
        self.released.lock().expect("lock").push(boot);
        Ok(2)
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

const OLDER: u128 = 4;
const ELSEWHERE: u128 = 5;

/// This process is `gw-1` boot OWN; `rows` are the running rows in the database.
fn restart(rows: &[(BootId, &str, usize)]) -> (Arc<Rows>, Arc<Beats>, RequestRecovery) {
    let rows = Rows::named(rows);
    let beats = Arc::new(Beats::default());
    beats.set(boot(OWN), true);
    let recovery = RequestRecovery::new(rows.clone(), beats.clone(), boot(OWN), Duration::from_secs(3600));
    (rows, beats, recovery)
}

#[tokio::test]
async fn a_restart_takes_over_the_recorded_predecessor_while_its_heartbeat_still_lasts() {
    let (rows, beats, recovery) = restart(&[(boot(DEAD), "gw-1", 3), (boot(OWN), "gw-1", 1)]);
    // Killed a moment ago: its heartbeat key has not expired yet.
    beats.set(boot(DEAD), true);
    *beats.recorded.lock().expect("lock") = Some(boot(DEAD));
    let take_over = recovery.take_over_predecessors(&replica("gw-1")).await.expect("take over");
    assert_eq!(
        take_over,
        TakeOver {
            recorded: Some(boot(DEAD)),
            gone: vec![boot(DEAD)],
            slots_released: 2,
            rows_closed: 3,
            ..TakeOver::default()
        }
    );
    assert_eq!(rows.restarted(boot(DEAD)), 3, "closed as replica_restarted");
    assert_eq!(rows.running(boot(OWN)), 1, "this boot's own rows are never taken");
    assert_eq!(*beats.recorded.lock().expect("lock"), Some(boot(OWN)), "this boot is now the replica's");
}

#[tokio::test]
async fn a_restart_finds_its_earlier_boots_in_the_database_when_coordination_forgot_them() {
    let (rows, beats, recovery) = restart(&[
        (boot(DEAD), "gw-1", 2),
        (boot(OLDER), "gw-1", 1200),
        (boot(ELSEWHERE), "gw-2", 1),
        (boot(OWN), "gw-1", 1),
    ]);
    let mut take_over = recovery.take_over_predecessors(&replica("gw-1")).await.expect("take over");
    take_over.gone.sort();
    assert_eq!(
        take_over,
        TakeOver { gone: vec![boot(DEAD), boot(OLDER)], slots_released: 4, rows_closed: 1202, ..TakeOver::default() }
    );
    assert_eq!((rows.restarted(boot(DEAD)), rows.restarted(boot(OLDER))), (2, 1200), "in batches");
    assert_eq!(rows.running(boot(ELSEWHERE)), 1, "another replica's dead boot waits for the lease path");
    assert_eq!(rows.running(boot(OWN)), 1);
    let mut released = beats.released.lock().expect("lock").clone();
    released.sort();
    assert_eq!(released, vec![boot(DEAD), boot(OLDER)], "their slots are released too");
}

#[tokio::test]
async fn a_live_boot_of_the_same_name_is_left_alone() {
    let (rows, beats, recovery) = restart(&[(boot(LIVE), "gw-1", 2), (boot(DEAD), "gw-1", 1)]);
    beats.set(boot(LIVE), true);
    let take_over = recovery.take_over_predecessors(&replica("gw-1")).await.expect("take over");
    assert_eq!(take_over.live, vec![boot(LIVE)], "reported");
    assert_eq!(take_over.gone, vec![boot(DEAD)]);
    assert_eq!(rows.running(boot(LIVE)), 2, "a live boot's rows run on");
    assert!(!beats.released.lock().expect("lock").contains(&boot(LIVE)), "and its slots stay held");
}

#[tokio::test]
async fn nothing_found_in_the_database_is_taken_while_coordination_cannot_be_asked() {
    let (rows, beats, recovery) = restart(&[(boot(DEAD), "gw-1", 2)]);
    *beats.down.lock().expect("lock") = true;
    let take_over = recovery.take_over_predecessors(&replica("gw-1")).await.expect("take over");
    assert_eq!(take_over, TakeOver { unknown: vec![boot(DEAD)], ..TakeOver::default() });
    assert_eq!(rows.running(boot(DEAD)), 2, "left to the recovery of dead boots");
}
