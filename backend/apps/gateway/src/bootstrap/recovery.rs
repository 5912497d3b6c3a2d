//! Crash recovery wiring: who this process is (replica name + boot), the slot heartbeat, the
//! request-recovery worker, and the take-over of what a crashed predecessor left at start.
//! Decision: `docs/decisions/0151-replica-identity-and-slot-heartbeat.md`.

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
/// `slot-heartbeat` every third of the slot TTL, and `request-recovery` every sixth; a dead
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
        let (held, coordination) = (held.clone(), storage.coordination.clone());
        FnWorker::periodic("slot-heartbeat", period, move || {
            let (held, coordination) = (held.clone(), coordination.clone());
            Box::pin(async move {
                let outcome = held.beat(coordination.as_ref(), ttl).await?;
                if outcome.lost > 0 {
                    tracing::warn!(lost = outcome.lost, "held slots had expired before the heartbeat");
                }
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

impl Recovery {
    /// Before serving: marks this boot alive, records it as its replica's current boot, and
    /// takes over what the previous boot of the same replica left (a crash): frees its slots and
    /// recovers its running rows at once. Failures only warn: the slots then expire by their TTL
    /// and the recovery worker takes the rows once the predecessor's heartbeat has lapsed.
    pub async fn take_over_predecessor(&self, heartbeats: &dyn ReplicaHeartbeats) {
        let (replica, boot) = (&self.runner.replica, self.runner.boot);
        if let Err(error) = self.held.beat(heartbeats, self.ttl).await {
            tracing::warn!(%error, "first heartbeat failed");
        }
        let previous = match heartbeats.claim_replica(replica, boot).await {
            Ok(previous) => previous,
            Err(error) => {
                tracing::warn!(%error, %replica, "cannot look up this replica's previous process");
                return;
            }
        };
        let Some(previous) = previous else {
            tracing::info!(%replica, %boot, "first start of this replica");
            return;
        };
        match heartbeats.release_boot(previous).await {
            Ok(freed) => tracing::info!(%replica, %previous, freed, "released the previous process's slots"),
            Err(error) => tracing::warn!(%error, %previous, "cannot release the previous process's slots"),
        }
        match self.requests.recover_boot(previous).await {
            Ok(recovered) => tracing::info!(%replica, %previous, recovered, "recovered the previous process's rows"),
            Err(error) => tracing::warn!(%error, %previous, "cannot recover the previous process's rows yet"),
        }
    }
}
