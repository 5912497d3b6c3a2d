//! `OAuthPendingFlows` over one hash per flow (`P:oauth:v1:<provider>:{fingerprint}`), fields
//! `owner_fingerprint`, `expires_at_epoch_seconds`, `provider_payload` and, while claimed,
//! `claim_fingerprint`, `claim_expires_at_epoch_millis`.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{
    ClaimId, ClaimRelease, CoordinationError, FlowClaim, FlowCreate, FlowFinish, OAuthFlowKey, OAuthPendingFlows,
    UnixMillis,
};

use super::RedisCoordination;
use super::reply::Reply;

#[async_trait]
impl OAuthPendingFlows for RedisCoordination {
    async fn create_flow(
        &self,
        key: &OAuthFlowKey,
        owner_fingerprint: &str,
        payload: &[u8],
        ttl: Duration,
    ) -> Result<FlowCreate, CoordinationError> {
        let script = &self.scripts.flow_create;
        let value = script
            .call()
            .key(self.keys.oauth_flow(key))
            .arg(owner_fingerprint)
            .arg(payload)
            .arg(duration_millis(ttl).max(1))
            .invoke(&self.connection)
            .await?;
        let mut reply = Reply::new(script.name, value)?;
        let outcome = reply.text()?;
        match outcome.as_str() {
            "created" => Ok(FlowCreate::Created { expires_at: UnixMillis(reply.u64()?) }),
            "exists" => Ok(FlowCreate::Exists),
            other => Err(reply.unknown(other)),
        }
    }

    async fn claim_flow(
        &self,
        key: &OAuthFlowKey,
        owner_fingerprint: &str,
        claim: &ClaimId,
        claim_ttl: Duration,
    ) -> Result<FlowClaim, CoordinationError> {
        let script = &self.scripts.flow_claim;
        let value = script
            .call()
            .key(self.keys.oauth_flow(key))
            .arg(owner_fingerprint)
            .arg(claim.0.as_str())
            .arg(duration_millis(claim_ttl).max(1))
            .invoke(&self.connection)
            .await?;
        let mut reply = Reply::new(script.name, value)?;
        let outcome = reply.text()?;
        match outcome.as_str() {
            "claimed" => {
                let payload = reply.bytes()?;
                Ok(FlowClaim::Claimed { payload, claim_expires_at: UnixMillis(reply.u64()?) })
            }
            "missing" => Ok(FlowClaim::NotFound),
            "owner_mismatch" => Ok(FlowClaim::OwnerMismatch),
            "claimed_by_other" => Ok(FlowClaim::AlreadyClaimed { until: UnixMillis(reply.u64()?) }),
            other => Err(reply.unknown(other)),
        }
    }

    async fn release_claim(&self, key: &OAuthFlowKey, claim: &ClaimId) -> Result<ClaimRelease, CoordinationError> {
        let script = &self.scripts.flow_release;
        let value = script.call().key(self.keys.oauth_flow(key)).arg(claim.0.as_str()).invoke(&self.connection).await?;
        let mut reply = Reply::new(script.name, value)?;
        let outcome = reply.text()?;
        match outcome.as_str() {
            "released" => Ok(ClaimRelease::Released),
            "not_claim_owner" => Ok(ClaimRelease::NotClaimOwner),
            "missing" => Ok(ClaimRelease::NotFound),
            other => Err(reply.unknown(other)),
        }
    }

    async fn finish_flow(&self, key: &OAuthFlowKey, claim: &ClaimId) -> Result<FlowFinish, CoordinationError> {
        let script = &self.scripts.flow_finish;
        let value = script.call().key(self.keys.oauth_flow(key)).arg(claim.0.as_str()).invoke(&self.connection).await?;
        let mut reply = Reply::new(script.name, value)?;
        let outcome = reply.text()?;
        match outcome.as_str() {
            "deleted" => Ok(FlowFinish::Deleted),
            "not_claim_owner" => Ok(FlowFinish::NotClaimOwner),
            "missing" => Ok(FlowFinish::NotFound),
            other => Err(reply.unknown(other)),
        }
    }
}
