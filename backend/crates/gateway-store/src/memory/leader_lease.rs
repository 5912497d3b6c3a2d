//! `Leases` in process; fence counters per lease name, period leases per (task, index).

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::leader_lease::PeriodClaim;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{CoordinationError, FenceToken, Lease, LeaseStatus, Leases, ReplicaId};

use super::{Expiring, MemoryCoordination, State};

fn positive_millis(ttl: Duration) -> Result<u64, CoordinationError> {
    match duration_millis(ttl) {
        0 => Err(CoordinationError::InvalidInput("lease TTL/period must be at least 1 ms".to_owned())),
        ms => Ok(ms),
    }
}

/// Seeded from the clock like the Redis counter: tokens stay monotonic across a restart.
fn next_fence(state: &mut State, name: &str, now: u64) -> u64 {
    let fence = state.fences.entry(name.to_owned()).or_insert(now * 1000);
    *fence += 1;
    *fence
}

fn holds(state: &State, lease: &Lease, now: u64) -> bool {
    state
        .leases
        .get(&lease.name)
        .is_some_and(|held| held.live(now) && held.value.0 == lease.holder && held.value.1 == lease.token.0)
}

#[async_trait]
impl Leases for MemoryCoordination {
    async fn try_acquire_lease(
        &self,
        name: &str,
        holder: &ReplicaId,
        ttl: Duration,
    ) -> Result<Option<Lease>, CoordinationError> {
        let ttl = positive_millis(ttl)?;
        let (mut state, now) = self.lock();
        if state.leases.get(name).is_some_and(|held| held.live(now)) {
            return Ok(None);
        }
        let token = next_fence(&mut state, name, now);
        state.leases.insert(name.to_owned(), Expiring { value: (holder.clone(), token), expires_at: now + ttl });
        Ok(Some(Lease { name: name.to_owned(), holder: holder.clone(), token: FenceToken(token) }))
    }

    async fn renew_lease(&self, lease: &Lease, ttl: Duration) -> Result<LeaseStatus, CoordinationError> {
        let ttl = positive_millis(ttl)?;
        let (mut state, now) = self.lock();
        if !holds(&state, lease, now) {
            return Ok(LeaseStatus::Lost);
        }
        if let Some(held) = state.leases.get_mut(&lease.name) {
            held.expires_at = now + ttl;
        }
        Ok(LeaseStatus::Held)
    }

    async fn release_lease(&self, lease: &Lease) -> Result<LeaseStatus, CoordinationError> {
        let (mut state, now) = self.lock();
        if !holds(&state, lease, now) {
            return Ok(LeaseStatus::Lost);
        }
        state.leases.remove(&lease.name);
        Ok(LeaseStatus::Held)
    }

    async fn check_lease(&self, lease: &Lease) -> Result<LeaseStatus, CoordinationError> {
        let (state, now) = self.lock();
        Ok(if holds(&state, lease, now) { LeaseStatus::Held } else { LeaseStatus::Lost })
    }

    async fn claim_period(
        &self,
        task: &str,
        period: Duration,
        _holder: &ReplicaId,
    ) -> Result<PeriodClaim, CoordinationError> {
        let period = positive_millis(period)?;
        let (mut state, now) = self.lock();
        let index = now / period;
        let next_in = Duration::from_millis((index + 1) * period - now);
        let key = (task.to_owned(), index);
        if state.periods.get(&key).is_some_and(|expires_at| *expires_at > now) {
            return Ok(PeriodClaim { index, token: None, next_in });
        }
        let token = next_fence(&mut state, task, now);
        state.periods.insert(key, now + 2 * period);
        Ok(PeriodClaim { index, token: Some(FenceToken(token)), next_in })
    }
}
