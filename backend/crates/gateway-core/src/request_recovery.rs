//! Recovery of request rows whose process can no longer finish them (never replayed):
//!
//! - rows of a boot whose heartbeat stopped (kill -9, OOM, a lost host) become `incomplete`
//!   with `error_code = replica_lost`. Any live replica does it, after the boot's heartbeat has
//!   been missing for `confirm_after` (longer than one heartbeat period, so that a live replica
//!   whose heartbeat key was lost with Redis' data has re-created it before anyone decides);
//! - a restarted replica does it at once for its predecessor ([`RequestRecovery::recover_boot`]);
//! - rows still `running` past their deadline (`engine.request_deadline_seconds`) become
//!   `incomplete` with `stale_recovered`: the backstop for rows without a boot.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use time::OffsetDateTime;

use crate::coordination::{CoordinationError, ReplicaHeartbeats};
use crate::domain::BootId;
use crate::ports::{RequestLog, StorageError};

/// Most rows one statement recovers; a pass repeats while batches come back full (bounded).
const BATCH: u32 = 500;
/// Most batches per boot (or of stale rows) in one pass.
const MAX_BATCHES: usize = 20;
/// Most distinct running boots looked at in one pass.
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

    /// Recovers every running row of `boot`, known to be gone (a predecessor). Returns the count.
    pub async fn recover_boot(&self, boot: BootId) -> Result<usize, StorageError> {
        let mut recovered = 0;
        for _ in 0..MAX_BATCHES {
            let batch = self.requests.recover_boot(boot, OffsetDateTime::now_utc(), BATCH).await?.len();
            recovered += batch;
            if batch < BATCH as usize {
                break;
            }
        }
        Ok(recovered)
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
