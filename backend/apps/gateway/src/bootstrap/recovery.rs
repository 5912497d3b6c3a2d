//! Crash recovery wiring: who this process is (replica name + boot), the slot heartbeat, the
//! request-recovery worker, and the take-over of what a crashed predecessor left at start.
//! Decisions: `docs/decisions/0151-replica-identity-and-slot-heartbeat.md`,
//! `docs/decisions/0325-restarted-replica-closes-its-predecessors-rows.md`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use gateway_core::coordination::{HeldSlots, ReplicaHeartbeats};
use gateway_core::domain::{BootId, ReplicaName, Runner};
use gateway_core::request_recovery::RequestRecovery;
use gateway_host::{ConfigError, FnWorker, WorkerRuntime};

use super::{StartError, Storage};

/// This process: the configured replica name (or `<hostname>:<listen port>`) and a new boot.
pub fn runner(config: &Config, listening: SocketAddr) -> Result<Runner, StartError> {
    let name = match &config.server.replica_name {
        Some(name) => name.clone(),
        None => format!("{}:{}", hostname(), listening.port()),
    };
    let replica = ReplicaName::parse(&name)
        .map_err(|reason| StartError::Config(ConfigError::invalid("server.replica_name", &reason)))?;
    Ok(Runner { replica, boot: BootId::random() })
}

/// The host's name, reduced to the characters a replica name allows.
fn hostname() -> String {
    let raw = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .unwrap_or_default();
    let cleaned: String = raw
        .trim()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '-' })
        .take(150)
        .collect();
    if cleaned.is_empty() { "localhost".to_owned() } else { cleaned }
}

/// The recovery parts the serve loop needs after wiring.
pub struct Recovery {
    pub held: HeldSlots,
    pub requests: Arc<RequestRecovery>,
    pub runner: Runner,
    ttl: Duration,
}

/// Builds the registry of held slots and the request recovery, and registers their workers:
/// `slot-heartbeat` every third of the slot TTL (it also renews the replica's record), and
/// `request-recovery` every sixth; a dead
/// boot's rows are recovered once its heartbeat has been missing for 2/5 of a TTL — longer than
/// one heartbeat period, so a live replica whose key Redis lost has re-created it by then. With
/// the default 30 s: slots free within 30 s of a crash, rows within about 52 s.
pub fn build(
    storage: &Storage,
    runner: Runner,
    ttl: Duration,
    workers: &mut WorkerRuntime,
) -> Result<Recovery, StartError> {
    let held = HeldSlots::new(storage.coordination.clone(), runner.boot);
    let requests =
        Arc::new(RequestRecovery::new(storage.facts.clone(), storage.coordination.clone(), runner.boot, ttl * 2 / 5));
    let period = ttl / 3;
    let heartbeat = {
        let (held, coordination, replica) = (held.clone(), storage.coordination.clone(), runner.replica.clone());
        FnWorker::periodic("slot-heartbeat", period, move || {
            let (held, coordination, replica) = (held.clone(), coordination.clone(), replica.clone());
            Box::pin(async move {
                let outcome = held.beat(coordination.as_ref(), ttl).await?;
                if outcome.lost > 0 {
                    tracing::warn!(lost = outcome.lost, "held slots had expired before the heartbeat");
                }
                renew_replica_record(coordination.as_ref(), &replica, held.boot()).await;
                Ok(())
            })
        })
    };
    workers.register(heartbeat).map_err(StartError::Wiring)?;
    let recovery = {
        let requests = requests.clone();
        FnWorker::periodic("request-recovery", ttl / 6, move || {
            let requests = requests.clone();
            Box::pin(async move { requests.tick().await.map(|_| ()).map_err(Into::into) })
        })
    };
    workers.register(recovery).map_err(StartError::Wiring)?;
    Ok(Recovery { held, requests, runner, ttl })
}

/// Writes this boot again as `replica`'s current one, so the record outlives its lifetime
/// (counted from the last write) for as long as the process runs and is there for the next
/// start to find its predecessor. A record naming another boot means another process claimed
/// the name since: two live processes share it (or this one's own claim at start failed).
async fn renew_replica_record(heartbeats: &dyn ReplicaHeartbeats, replica: &ReplicaName, boot: BootId) {
    match heartbeats.claim_replica(replica, boot).await {
        Ok(None) => {}
        Ok(Some(other)) => tracing::warn!(
            %replica,
            %other,
            "another process recorded itself under this replica name; give every replica its own server.replica_name"
        ),
        Err(error) => tracing::warn!(%error, %replica, "cannot renew this replica's record"),
    }
}

impl Recovery {
    /// Before serving: marks this boot alive, records it as its replica's current boot, and
    /// takes over what earlier boots of the same replica left (a crash): frees their slots and
    /// closes their running rows at once (`replica_restarted`). Failures only warn: the slots
    /// then expire by their TTL and the recovery worker takes the rows once the predecessor's
    /// heartbeat has lapsed (`replica_lost`).
    pub async fn take_over_predecessor(&self, heartbeats: &dyn ReplicaHeartbeats) {
        let (replica, boot) = (&self.runner.replica, self.runner.boot);
        if let Err(error) = self.held.beat(heartbeats, self.ttl).await {
            tracing::warn!(%error, "first heartbeat failed");
        }
        match self.requests.take_over_predecessors(replica).await {
            Ok(take_over) if take_over.gone.is_empty() => {
                tracing::info!(%replica, %boot, recorded = ?take_over.recorded, "no earlier process of this replica left anything")
            }
            Ok(take_over) => tracing::info!(
                %replica,
                %boot,
                gone = ?take_over.gone,
                slots_released = take_over.slots_released,
                rows_closed = take_over.rows_closed,
                "took over what the earlier processes of this replica left"
            ),
            Err(error) => tracing::warn!(%error, %replica, "cannot close the earlier processes' rows yet"),
        }
    }
}
