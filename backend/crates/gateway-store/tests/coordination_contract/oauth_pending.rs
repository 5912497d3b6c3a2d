//! Contract: OAuth pending flows: owner checks, atomic claims, claim-owner-only release/delete.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, ensure};
use gateway_core::coordination::oauth_pending::pending_ttl;
use gateway_core::coordination::{
    ClaimId, ClaimRelease, Coordination, FlowClaim, FlowCreate, FlowFinish, OAuthFlowKey,
};
use gateway_core::domain::ProviderKind;
use test_support::wait_until;

use super::fixtures::EXPIRY_DEADLINE;

const PAYLOAD: &[u8] = b"{\"pkce_verifier\":\"v\",\"installation_id\":\"i\"}\x00\xff";

async fn create<C: Coordination>(port: &C, state: &[u8]) -> anyhow::Result<OAuthFlowKey> {
    let key = OAuthFlowKey::derive(ProviderKind::Openai, state);
    let created = port.create_flow(&key, "admin-session-1", PAYLOAD, pending_ttl(ProviderKind::Openai)).await?;
    ensure!(matches!(created, FlowCreate::Created { .. }), "{created:?}");
    Ok(key)
}

pub async fn oauth_flow_claim_rules<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let key = create(port.as_ref(), b"state-1").await?;
    let again = port.create_flow(&key, "admin-session-2", b"other", Duration::from_secs(600)).await?;
    ensure!(again == FlowCreate::Exists, "a second create changes nothing: {again:?}");

    let (mine, theirs) = (ClaimId::random(), ClaimId::random());
    let wrong_owner = port.claim_flow(&key, "admin-session-2", &theirs, Duration::from_secs(60)).await?;
    ensure!(wrong_owner == FlowClaim::OwnerMismatch, "owner mismatch: {wrong_owner:?}");
    match port.claim_flow(&key, "admin-session-1", &mine, Duration::from_secs(60)).await? {
        FlowClaim::Claimed { payload, .. } => ensure!(payload == PAYLOAD, "the payload survives byte for byte"),
        other => bail!("the owner claims after a mismatch (nothing was deleted): {other:?}"),
    }
    let blocked = port.claim_flow(&key, "admin-session-1", &theirs, Duration::from_secs(60)).await?;
    ensure!(matches!(blocked, FlowClaim::AlreadyClaimed { .. }), "a live claim blocks: {blocked:?}");
    ensure!(port.release_claim(&key, &theirs).await? == ClaimRelease::NotClaimOwner, "only the claim owner releases");
    ensure!(port.finish_flow(&key, &theirs).await? == FlowFinish::NotClaimOwner, "only the claim owner deletes");

    // The completion failed: the claim owner gives the flow back; a retry claims it.
    ensure!(port.release_claim(&key, &mine).await? == ClaimRelease::Released, "released");
    let retry = port.claim_flow(&key, "admin-session-1", &theirs, Duration::from_secs(60)).await?;
    ensure!(matches!(retry, FlowClaim::Claimed { .. }), "claimable again: {retry:?}");
    ensure!(port.finish_flow(&key, &mine).await? == FlowFinish::NotClaimOwner, "the old claim lost its rights");
    // The account transaction committed: the claim owner deletes the flow.
    ensure!(port.finish_flow(&key, &theirs).await? == FlowFinish::Deleted, "deleted");
    let gone = port.claim_flow(&key, "admin-session-1", &mine, Duration::from_secs(60)).await?;
    ensure!(gone == FlowClaim::NotFound, "{gone:?}");
    ensure!(port.release_claim(&key, &mine).await? == ClaimRelease::NotFound, "gone");
    Ok(())
}

/// Racing completions of one flow: exactly one claims it; a racer with the wrong owner deletes
/// nothing.
pub async fn oauth_racing_completions_claim_once<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let key = create(port.as_ref(), b"state-race").await?;
    let mut racers = tokio::task::JoinSet::new();
    for n in 0..16 {
        let port = Arc::clone(&port);
        let owner = if n % 4 == 3 { "someone-else" } else { "admin-session-1" };
        racers.spawn(async move {
            let claim = ClaimId::random();
            let outcome = port.claim_flow(&key, owner, &claim, Duration::from_secs(60)).await?;
            if owner == "someone-else" {
                // The wrong owner tries to delete too: refused, nothing removed.
                ensure!(
                    port.finish_flow(&key, &claim).await? == FlowFinish::NotClaimOwner,
                    "wrong owner deletes nothing"
                );
            }
            Ok::<_, anyhow::Error>((owner, claim, outcome))
        });
    }
    let mut winners = Vec::new();
    while let Some(result) = racers.join_next().await {
        let (owner, claim, outcome) = result??;
        match outcome {
            FlowClaim::Claimed { .. } => winners.push(claim),
            FlowClaim::AlreadyClaimed { .. } if owner == "admin-session-1" => {}
            FlowClaim::OwnerMismatch if owner == "someone-else" => {}
            other => bail!("unexpected outcome for {owner}: {other:?}"),
        }
    }
    ensure!(winners.len() == 1, "exactly one completion claims the flow, got {}", winners.len());
    ensure!(port.finish_flow(&key, &winners[0]).await? == FlowFinish::Deleted, "the winner deletes after commit");
    Ok(())
}

pub async fn oauth_expired_claim_can_be_taken_over<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let key = create(port.as_ref(), b"state-expiry").await?;
    let (crashed, retry) = (ClaimId::random(), ClaimId::random());
    let first = port.claim_flow(&key, "admin-session-1", &crashed, Duration::from_millis(200)).await?;
    ensure!(matches!(first, FlowClaim::Claimed { .. }), "{first:?}");
    // The first completion died holding the claim; its claim TTL frees the flow.
    wait_until("the claim to expire", EXPIRY_DEADLINE, || async {
        let outcome = port.claim_flow(&key, "admin-session-1", &retry, Duration::from_secs(60)).await;
        matches!(outcome, Ok(FlowClaim::Claimed { .. })).then_some(())
    })
    .await?;
    ensure!(port.finish_flow(&key, &crashed).await? == FlowFinish::NotClaimOwner, "the dead claim deletes nothing");
    ensure!(port.finish_flow(&key, &retry).await? == FlowFinish::Deleted, "the live claim deletes");
    Ok(())
}
