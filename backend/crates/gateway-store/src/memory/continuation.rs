//! `ContinuationPins` in process.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{ContinuationPin, ContinuationPins, CoordinationError, PinLookup, PinWrite};
use gateway_core::domain::ClientKeyId;

use super::{Expiring, MemoryCoordination};

#[async_trait]
impl ContinuationPins for MemoryCoordination {
    async fn pin(
        &self,
        response_id: &[u8],
        pin: &ContinuationPin,
        ttl: Duration,
    ) -> Result<PinWrite, CoordinationError> {
        let (mut state, now) = self.lock();
        if state.pins.get(response_id).is_some_and(|p| p.live(now) && p.value.client_key != pin.client_key) {
            return Ok(PinWrite::Conflict);
        }
        let expires_at = now + duration_millis(ttl).max(1);
        state.pins.insert(response_id.to_vec(), Expiring { value: pin.clone(), expires_at });
        Ok(PinWrite::Written)
    }

    async fn lookup(&self, response_id: &[u8], client_key: ClientKeyId) -> Result<PinLookup, CoordinationError> {
        let (state, now) = self.lock();
        Ok(match state.pins.get(response_id).filter(|p| p.live(now)) {
            None => PinLookup::NotFound,
            Some(pin) if pin.value.client_key != client_key => PinLookup::NotYours,
            Some(pin) => PinLookup::Found(pin.value.clone()),
        })
    }

    async fn unpin(&self, response_id: &[u8], client_key: ClientKeyId) -> Result<bool, CoordinationError> {
        let (mut state, now) = self.lock();
        let owned = state.pins.get(response_id).is_some_and(|p| p.live(now) && p.value.client_key == client_key);
        if owned {
            state.pins.remove(response_id);
        }
        Ok(owned)
    }
}
