//! [`InFlightCounts`] in process: the live slots of each account.

use async_trait::async_trait;

use gateway_admin::ports::InFlightCounts;
use gateway_core::coordination::CoordinationError;
use gateway_core::domain::AccountId;

use super::MemoryCoordination;

#[async_trait]
impl InFlightCounts for MemoryCoordination {
    async fn in_flight(&self, accounts: &[AccountId]) -> Result<Vec<u32>, CoordinationError> {
        let (state, now) = self.lock();
        Ok(accounts
            .iter()
            .map(|account| {
                state.accounts.get(account).map_or(0, |a| {
                    u32::try_from(a.slots.values().filter(|expiry| **expiry > now).count()).unwrap_or(u32::MAX)
                })
            })
            .collect())
    }
}
