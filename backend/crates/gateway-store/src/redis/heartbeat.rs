//! `ReplicaHeartbeats` over the heartbeat / replica_claim / release_boot / boots_alive scripts.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::heartbeat::validate_heartbeat;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{CoordinationError, HeartbeatOutcome, HeldLeases, ReplicaHeartbeats};
use gateway_core::domain::{BootId, ReplicaName};

use super::RedisCoordination;
use super::reply::Reply;

/// How long a replica's record of its last boot is kept (a replica gone for longer has no
/// slots or rows left to take over: they expired or were recovered by others).
const REPLICA_RECORD_LIFETIME_MS: u64 = 30 * 86_400_000;

#[async_trait]
impl ReplicaHeartbeats for RedisCoordination {
    async fn heartbeat(
        &self,
        boot: BootId,
        leases: &[HeldLeases],
        ttl: Duration,
    ) -> Result<HeartbeatOutcome, CoordinationError> {
        validate_heartbeat(leases, ttl)?;
        let mut call = self.scripts.heartbeat.call().key(self.keys.boot_alive(boot)).key(self.keys.boot_slots(boot));
        for lease in leases {
            call = call.key(self.admission_member(lease).0).key(self.account_member(lease).0);
        }
        call = call.arg(duration_millis(ttl));
        for lease in leases {
            call = call.arg(self.admission_member(lease).1).arg(self.account_member(lease).1);
        }
        let mut reply = Reply::new(self.scripts.heartbeat.name, call.invoke(&self.connection).await?)?;
        Ok(HeartbeatOutcome { renewed: reply.u32()?, lost: reply.u32()? })
    }

    async fn claim_replica(&self, replica: &ReplicaName, boot: BootId) -> Result<Option<BootId>, CoordinationError> {
        let value = self
            .scripts
            .replica_claim
            .call()
            .key(self.keys.replica(replica))
            .arg(boot.to_string())
            .arg(REPLICA_RECORD_LIFETIME_MS)
            .invoke(&self.connection)
            .await?;
        let mut reply = Reply::new(self.scripts.replica_claim.name, value)?;
        match reply.text()?.as_str() {
            "first" => Ok(None),
            "replaced" => {
                let previous = reply.text()?;
                let id = uuid::Uuid::try_parse(&previous).map_err(|_| reply.unknown(&previous))?;
                Ok(Some(BootId(id)))
            }
            other => Err(reply.unknown(other)),
        }
    }

    async fn release_boot(&self, boot: BootId) -> Result<u64, CoordinationError> {
        let value = self
            .scripts
            .release_boot
            .call()
            .key(self.keys.boot_alive(boot))
            .key(self.keys.boot_slots(boot))
            .invoke(&self.connection)
            .await?;
        Reply::new(self.scripts.release_boot.name, value)?.u64()
    }

    async fn boots_alive(&self, boots: &[BootId]) -> Result<Vec<bool>, CoordinationError> {
        if boots.is_empty() {
            return Ok(Vec::new());
        }
        let mut call = self.scripts.boots_alive.call();
        for boot in boots {
            call = call.key(self.keys.boot_alive(*boot));
        }
        let mut reply = Reply::new(self.scripts.boots_alive.name, call.invoke(&self.connection).await?)?;
        boots.iter().map(|_| reply.i64().map(|exists| exists == 1)).collect()
    }
}
