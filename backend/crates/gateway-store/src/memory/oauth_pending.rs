//! `OAuthPendingFlows` in process; the same rules as the `flow_*.lua` scripts.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{
    ClaimId, ClaimRelease, CoordinationError, FlowClaim, FlowCreate, FlowFinish, OAuthFlowKey, OAuthPendingFlows,
    UnixMillis,
};

use super::{Expiring, FlowRecord, MemoryCoordination};

#[async_trait]
impl OAuthPendingFlows for MemoryCoordination {
    async fn create_flow(
        &self,
        key: &OAuthFlowKey,
        owner_fingerprint: &str,
        payload: &[u8],
        ttl: Duration,
    ) -> Result<FlowCreate, CoordinationError> {
        let (mut state, now) = self.lock();
        if state.flows.get(key).is_some_and(|flow| flow.live(now)) {
            return Ok(FlowCreate::Exists);
        }
        let expires_at = now + duration_millis(ttl).max(1);
        let record = FlowRecord { owner: owner_fingerprint.to_owned(), payload: payload.to_vec(), claim: None };
        state.flows.insert(*key, Expiring { value: record, expires_at });
        Ok(FlowCreate::Created { expires_at: UnixMillis(expires_at) })
    }

    async fn claim_flow(
        &self,
        key: &OAuthFlowKey,
        owner_fingerprint: &str,
        claim: &ClaimId,
        claim_ttl: Duration,
    ) -> Result<FlowClaim, CoordinationError> {
        let (mut state, now) = self.lock();
        let Some(flow) = state.flows.get_mut(key).filter(|flow| flow.live(now)) else {
            return Ok(FlowClaim::NotFound);
        };
        let record = &mut flow.value;
        if record.owner != owner_fingerprint {
            return Ok(FlowClaim::OwnerMismatch);
        }
        if let Some((holder, until)) = &record.claim
            && *holder != claim.0
            && *until > now
        {
            return Ok(FlowClaim::AlreadyClaimed { until: UnixMillis(*until) });
        }
        let until = now + duration_millis(claim_ttl).max(1);
        record.claim = Some((claim.0.clone(), until));
        Ok(FlowClaim::Claimed { payload: record.payload.clone(), claim_expires_at: UnixMillis(until) })
    }

    async fn release_claim(&self, key: &OAuthFlowKey, claim: &ClaimId) -> Result<ClaimRelease, CoordinationError> {
        let (mut state, now) = self.lock();
        let Some(flow) = state.flows.get_mut(key).filter(|flow| flow.live(now)) else {
            return Ok(ClaimRelease::NotFound);
        };
        if flow.value.claim.as_ref().is_none_or(|(holder, _)| *holder != claim.0) {
            return Ok(ClaimRelease::NotClaimOwner);
        }
        flow.value.claim = None;
        Ok(ClaimRelease::Released)
    }

    async fn finish_flow(&self, key: &OAuthFlowKey, claim: &ClaimId) -> Result<FlowFinish, CoordinationError> {
        let (mut state, now) = self.lock();
        let Some(flow) = state.flows.get(key).filter(|flow| flow.live(now)) else {
            return Ok(FlowFinish::NotFound);
        };
        if flow.value.claim.as_ref().is_none_or(|(holder, _)| *holder != claim.0) {
            return Ok(FlowFinish::NotClaimOwner);
        }
        state.flows.remove(key);
        Ok(FlowFinish::Deleted)
    }
}
