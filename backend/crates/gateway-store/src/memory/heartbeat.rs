//! `ReplicaHeartbeats` in process: the same contract as the Redis scripts (`heartbeat`,
//! `replica_claim`, `release_boot`, `boots_alive`).

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::heartbeat::validate_heartbeat;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{CoordinationError, HeartbeatOutcome, HeldLeases, ReplicaHeartbeats};
use gateway_core::domain::{BootId, ReplicaName};

use super::{MemoryCoordination, SlotRef, State};

#[async_trait]
impl ReplicaHeartbeats for MemoryCoordination {
    async fn heartbeat(
        &self,
        boot: BootId,
        leases: &[HeldLeases],
        ttl: Duration,
    ) -> Result<HeartbeatOutcome, CoordinationError> {
        validate_heartbeat(leases, ttl)?;
        let (mut state, now) = self.lock();
        let expiry = now + duration_millis(ttl);
        let mut outcome = HeartbeatOutcome::default();
        for lease in leases {
            let slots = lease
                .admission
                .map(|a| SlotRef::Admission(a.client_key, a.request))
                .into_iter()
                .chain(lease.account.map(|a| SlotRef::Account(a.account, a.token.0)));
            for slot in slots {
                if renew(&mut state, slot, now, expiry) {
                    state.boots.entry(boot).or_default().slots.insert(slot, expiry);
                    outcome.renewed += 1;
                } else {
                    outcome.lost += 1;
                }
            }
        }
        let record = state.boots.entry(boot).or_default();
        record.slots.retain(|_, until| *until > now);
        record.alive_until = expiry;
        Ok(outcome)
    }

    async fn claim_replica(&self, replica: &ReplicaName, boot: BootId) -> Result<Option<BootId>, CoordinationError> {
        let (mut state, _) = self.lock();
        let previous = state.replicas.insert(replica.as_str().to_owned(), boot);
        Ok(previous.filter(|previous| *previous != boot))
    }

    async fn release_boot(&self, boot: BootId) -> Result<u64, CoordinationError> {
        let (mut state, now) = self.lock();
        let Some(record) = state.boots.remove(&boot) else { return Ok(0) };
        let mut freed = 0;
        for slot in record.slots.into_keys() {
            let removed = match slot {
                SlotRef::Admission(key, request) => {
                    state.admission.get_mut(&key).and_then(|admission| admission.slots.remove(&request))
                }
                SlotRef::Account(account, token) => state.account(account).slots.remove(&token),
            };
            if removed.is_some_and(|expiry| expiry > now) {
                freed += 1;
            }
        }
        Ok(freed)
    }

    async fn boots_alive(&self, boots: &[BootId]) -> Result<Vec<bool>, CoordinationError> {
        let (state, now) = self.lock();
        Ok(boots.iter().map(|boot| state.boots.get(boot).is_some_and(|record| record.alive_until > now)).collect())
    }
}

/// Extends a live slot to `expiry`; `false` when it had expired or was freed.
fn renew(state: &mut State, slot: SlotRef, now: u64, expiry: u64) -> bool {
    let current = match slot {
        SlotRef::Admission(key, request) => {
            state.admission.get_mut(&key).and_then(|admission| admission.slots.get_mut(&request))
        }
        SlotRef::Account(account, token) => state.account(account).slots.get_mut(&token),
    };
    match current {
        Some(current) if *current > now => {
            *current = expiry;
            true
        }
        _ => false,
    }
}
