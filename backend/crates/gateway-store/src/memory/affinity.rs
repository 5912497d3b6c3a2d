//! `SessionAffinity` in process.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{AffinityKey, CoordinationError, RebindOutcome, SessionAffinity};
use gateway_core::domain::AccountId;

use super::{Expiring, MemoryCoordination};

#[async_trait]
impl SessionAffinity for MemoryCoordination {
    async fn binding(&self, key: &AffinityKey) -> Result<Option<AccountId>, CoordinationError> {
        let (state, now) = self.lock();
        Ok(state.affinity.get(key).filter(|b| b.live(now)).map(|b| b.value))
    }

    async fn bind_if_absent(
        &self,
        key: &AffinityKey,
        account: AccountId,
        idle_ttl: Duration,
    ) -> Result<AccountId, CoordinationError> {
        let (mut state, now) = self.lock();
        if let Some(bound) = state.affinity.get(key).filter(|b| b.live(now)) {
            return Ok(bound.value);
        }
        state.affinity.insert(*key, Expiring { value: account, expires_at: now + duration_millis(idle_ttl) });
        Ok(account)
    }

    async fn rebind(
        &self,
        key: &AffinityKey,
        from: AccountId,
        to: AccountId,
        idle_ttl: Duration,
    ) -> Result<RebindOutcome, CoordinationError> {
        let (mut state, now) = self.lock();
        match state.affinity.get_mut(key).filter(|b| b.live(now)) {
            None => Ok(RebindOutcome::Missing),
            Some(binding) if binding.value != from => Ok(RebindOutcome::Moved { current: binding.value }),
            Some(binding) => {
                *binding = Expiring { value: to, expires_at: now + duration_millis(idle_ttl) };
                Ok(RebindOutcome::Rebound)
            }
        }
    }

    async fn forget(&self, key: &AffinityKey) -> Result<(), CoordinationError> {
        self.lock().0.affinity.remove(key);
        Ok(())
    }
}
