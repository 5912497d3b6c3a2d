//! Replica heartbeats: how slots outlive only the process that holds them.
//!
//! Every slot an acquire grants is owned by the acquiring process's [`BootId`] and lives a short
//! TTL. A live process renews all the slots it holds with one [`ReplicaHeartbeats::heartbeat`]
//! call per period (a timer, not frame delivery), which also keeps its boot marked alive for one
//! TTL. When the process dies its slots expire within one TTL; when it restarts, the new boot
//! learns its predecessor from [`ReplicaHeartbeats::claim_replica`] (the last boot recorded under
//! its stable name) and frees the predecessor's slots at once with
//! [`ReplicaHeartbeats::release_boot`]. Other replicas ask [`ReplicaHeartbeats::boots_alive`]
//! before recovering a boot's request rows.

use std::time::Duration;

use async_trait::async_trait;

use super::{CoordinationError, HeldLeases};
use crate::domain::{BootId, ReplicaName};

/// Most leases one heartbeat call carries (a replica with more sends several calls).
pub const MAX_HEARTBEAT_LEASES: usize = 256;

/// What one heartbeat found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeartbeatOutcome {
    /// Slots (admission and account) that were live and now last another TTL.
    pub renewed: u32,
    /// Slots that had already expired or been freed: not resurrected.
    pub lost: u32,
}

impl HeartbeatOutcome {
    pub fn add(&mut self, other: HeartbeatOutcome) {
        self.renewed += other.renewed;
        self.lost += other.lost;
    }
}

#[async_trait]
pub trait ReplicaHeartbeats: Send + Sync {
    /// Marks `boot` alive for `ttl` and extends every live slot of `leases` (at most
    /// [`MAX_HEARTBEAT_LEASES`]) to `now + ttl`, in one round trip.
    async fn heartbeat(
        &self,
        boot: BootId,
        leases: &[HeldLeases],
        ttl: Duration,
    ) -> Result<HeartbeatOutcome, CoordinationError>;

    /// Records `boot` as the current process of `replica` and returns the boot it replaces, if
    /// another one was recorded (the predecessor whose slots and rows this boot takes over).
    async fn claim_replica(&self, replica: &ReplicaName, boot: BootId) -> Result<Option<BootId>, CoordinationError>;

    /// Frees every slot `boot` was granted and ends its heartbeat: its process is gone.
    /// Returns how many slots were still live.
    async fn release_boot(&self, boot: BootId) -> Result<u64, CoordinationError>;

    /// Whether each boot's heartbeat is live, in the order given.
    async fn boots_alive(&self, boots: &[BootId]) -> Result<Vec<bool>, CoordinationError>;
}

/// What every adapter checks before a heartbeat.
pub fn validate_heartbeat(leases: &[HeldLeases], ttl: Duration) -> Result<(), CoordinationError> {
    if leases.len() > MAX_HEARTBEAT_LEASES {
        return Err(CoordinationError::InvalidInput(format!(
            "a heartbeat carries at most {MAX_HEARTBEAT_LEASES} leases, got {}",
            leases.len()
        )));
    }
    if ttl.as_millis() == 0 {
        return Err(CoordinationError::InvalidInput("heartbeat TTL must be at least 1 ms".to_owned()));
    }
    Ok(())
}
