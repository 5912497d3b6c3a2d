//! Recovery of request rows whose process can no longer finish them (never replayed):
//!
//! - rows of a boot whose heartbeat stopped (kill -9, OOM, a lost host) become `incomplete`
//!   with `error_code = replica_lost`. Any live replica does it, after the boot's heartbeat has
//!   been missing for `confirm_after` (longer than one heartbeat period, so that a live replica
//!   whose heartbeat key was lost with Redis' data has re-created it before anyone decides);
//! - a restarted replica closes what its earlier boots left at start, before it serves
//!   ([`RequestRecovery::take_over_predecessors`]): their rows become `incomplete` with
//!   `error_code = replica_restarted` and their slots are released. It finds them by its
//!   replica name in the database as well as through the record in coordination storage, so
//!   the take-over does not depend on coordination storage remembering the predecessor; a boot
//!   of its name whose heartbeat is live belongs to another live process and is left alone;
//! - rows still `running` past their deadline (`engine.request_deadline_seconds`) become
//!   `incomplete` with `stale_recovered`: the backstop for rows without a boot.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use time::OffsetDateTime;

use crate::coordination::{CoordinationError, ReplicaHeartbeats};
use crate::domain::{BootId, ReplicaName};
use crate::ports::{RequestLog, StorageError};

/// Most rows one statement recovers; a pass repeats while batches come back full (bounded).
const BATCH: u32 = 500;
/// Most batches per boot (or of stale rows) in one pass.
const MAX_BATCHES: usize = 20;
/// Most distinct running boots looked at in one pass (or at a take-over).
const MAX_BOOTS: u32 = 64;

#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Coordination(#[from] CoordinationError),
}

/// What one pass recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecoveryPass {
    /// Rows of dead boots.
    pub replica_lost: usize,
    /// Rows past their deadline.
    pub stale: usize,
}

/// What a restarted replica took over from its earlier boots at start.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TakeOver {
    /// The boot coordination storage recorded under the replica's name before this one.
    pub recorded: Option<BootId>,
    /// Earlier boots of this replica, gone: their slots released, their rows closed.
    pub gone: Vec<BootId>,
    /// Slots of those boots that were still held and are now free.
    pub slots_released: u64,
    /// Their rows closed as `incomplete` (`replica_restarted`).
    pub rows_closed: usize,
    /// Boots of this replica name whose heartbeat is live: another process runs under the same
    /// name (a misconfiguration). Nothing of theirs is touched.
    pub live: Vec<BootId>,
    /// Boots of this replica name whose liveness could not be asked: their rows wait for the
    /// recovery of dead boots.
    pub unknown: Vec<BootId>,
}

pub struct RequestRecovery {
    requests: Arc<dyn RequestLog>,
    heartbeats: Arc<dyn ReplicaHeartbeats>,
    /// This process: its own rows are never recovered by this path.
    own: BootId,
    confirm_after: Duration,
    /// Boots seen without a heartbeat, and since when.
    suspects: Mutex<HashMap<BootId, Instant>>,
}

impl RequestRecovery {
    pub fn new(
        requests: Arc<dyn RequestLog>,
        heartbeats: Arc<dyn ReplicaHeartbeats>,
        own: BootId,
        confirm_after: Duration,
    ) -> Self {
        Self { requests, heartbeats, own, confirm_after, suspects: Mutex::new(HashMap::new()) }
    }

    /// Recovers every running row of `boot`, known to be gone (`replica_lost`). Returns the count.
    pub async fn recover_boot(&self, boot: BootId) -> Result<usize, StorageError> {
        in_batches(|| async { Ok(self.requests.recover_boot(boot, OffsetDateTime::now_utc(), BATCH).await?.len()) })
            .await
    }

    /// At start, before serving (this boot's heartbeat already beat once): records this boot as
    /// `replica`'s current one, and takes over every earlier boot of `replica` that is gone —
    /// releases its slots and closes its running rows (`replica_restarted`).
    ///
    /// Gone are the boot coordination storage recorded under the name (names are unique per
    /// live process, so the process it names is the one this boot replaces, even while its
    /// heartbeat has not lapsed yet) and every boot with running rows under the name whose
    /// heartbeat is absent. The database finds the latter even when coordination storage
    /// forgot the record (lost data, the in-process store of the embedded mode). A boot of the
    /// name with a live heartbeat is another process misconfigured with the same name: it is
    /// left alone and reported. Coordination failures only narrow what is taken over; a storage
    /// failure ends the take-over (the recovery of dead boots takes those rows later).
    pub async fn take_over_predecessors(&self, replica: &ReplicaName) -> Result<TakeOver, StorageError> {
        let mut take_over = TakeOver::default();
        match self.heartbeats.claim_replica(replica, self.own).await {
            Ok(recorded) => take_over.recorded = recorded,
            Err(error) => {
                tracing::warn!(%error, %replica, "cannot read this replica's previous process from coordination")
            }
        }
        let found: Vec<BootId> = self
            .requests
            .running_boots_of(replica, MAX_BOOTS)
            .await?
            .into_iter()
            .filter(|boot| *boot != self.own && Some(*boot) != take_over.recorded)
            .collect();
        take_over.gone.extend(take_over.recorded);
        self.sort_by_heartbeat(replica, found, &mut take_over).await;
        for boot in take_over.gone.clone() {
            match self.heartbeats.release_boot(boot).await {
                Ok(freed) => take_over.slots_released += freed,
                Err(error) => {
                    tracing::warn!(%error, %boot, "cannot release an earlier boot's slots; they expire by their TTL")
                }
            }
            take_over.rows_closed += self.close_restarted_boot(replica, boot).await?;
        }
        Ok(take_over)
    }

    /// Sorts the boots `found` under `replica` into gone (no heartbeat), live (warned about:
    /// another process uses the name) and unknown (coordination could not be asked).
    async fn sort_by_heartbeat(&self, replica: &ReplicaName, found: Vec<BootId>, take_over: &mut TakeOver) {
        if found.is_empty() {
            return;
        }
        match self.heartbeats.boots_alive(&found).await {
            Ok(alive) => {
                for (boot, alive) in found.into_iter().zip(alive) {
                    if alive { take_over.live.push(boot) } else { take_over.gone.push(boot) }
                }
            }
            Err(error) => {
                tracing::warn!(%error, %replica, "cannot ask whether this replica's earlier boots are alive; their rows wait");
                take_over.unknown = found;
            }
        }
        for boot in &take_over.live {
            tracing::warn!(
                %replica,
                %boot,
                "a live process runs under this replica name; its rows are left alone (give every replica its own server.replica_name)"
            );
        }
    }

    /// Closes every running row of `boot` under `replica` (`replica_restarted`). Returns the count.
    async fn close_restarted_boot(&self, replica: &ReplicaName, boot: BootId) -> Result<usize, StorageError> {
        in_batches(|| async {
            Ok(self.requests.recover_restarted_boot(replica, boot, OffsetDateTime::now_utc(), BATCH).await?.len())
        })
        .await
    }

    /// One pass: rows of boots whose heartbeat has been missing for `confirm_after`, then rows
    /// past their deadline. A coordination failure skips the first part (a boot is never
    /// declared dead because Redis could not be asked).
    pub async fn tick(&self) -> Result<RecoveryPass, RecoveryError> {
        let mut pass = RecoveryPass::default();
        let boots: Vec<BootId> =
            self.requests.running_boots(MAX_BOOTS).await?.into_iter().filter(|boot| *boot != self.own).collect();
        let dead = if boots.is_empty() { Vec::new() } else { self.confirmed_dead(&boots).await };
        for boot in dead {
            let recovered = self.recover_boot(boot).await?;
            tracing::warn!(%boot, recovered, "rows of a replica whose heartbeat stopped recovered as incomplete");
            pass.replica_lost += recovered;
        }
        for _ in 0..MAX_BATCHES {
            let batch = self.requests.recover_stale(OffsetDateTime::now_utc(), BATCH).await?.len();
            pass.stale += batch;
            if batch < BATCH as usize {
                break;
            }
        }
        if pass.stale > 0 {
            tracing::warn!(count = pass.stale, "running requests past their deadline recovered as incomplete");
        }
        Ok(pass)
    }

    /// The boots among `boots` whose heartbeat has been missing for at least `confirm_after`.
    async fn confirmed_dead(&self, boots: &[BootId]) -> Vec<BootId> {
        let alive = match self.heartbeats.boots_alive(boots).await {
            Ok(alive) => alive,
            Err(error) => {
                tracing::warn!(%error, "cannot ask which replicas are alive; their rows wait");
                return Vec::new();
            }
        };
        let now = Instant::now();
        let mut suspects = self.suspects.lock().unwrap_or_else(PoisonError::into_inner);
        // Forget boots that are alive again or no longer have running rows.
        suspects.retain(|boot, _| boots.iter().zip(&alive).any(|(b, live)| b == boot && !live));
        boots
            .iter()
            .zip(alive)
            .filter(|(_, alive)| !alive)
            .filter_map(|(boot, _)| {
                let since = *suspects.entry(*boot).or_insert(now);
                (now.duration_since(since) >= self.confirm_after).then_some(*boot)
            })
            .collect()
    }
}

/// Runs `batch` (one bounded statement, answering how many rows it took) until a batch comes
/// back short or [`MAX_BATCHES`] ran. Returns the total.
async fn in_batches<F, Fut>(mut batch: F) -> Result<usize, StorageError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<usize, StorageError>>,
{
    let mut total = 0;
    for _ in 0..MAX_BATCHES {
        let taken = batch().await?;
        total += taken;
        if taken < BATCH as usize {
            break;
        }
    }
    Ok(total)
}
