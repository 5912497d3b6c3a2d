//! Contract: cooldown deadlines and bounded model exclusions.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::cooldown::MAX_MODEL_EXCLUSIONS;
use gateway_core::coordination::{Cooldown, Coordination};
use gateway_core::fault::Fault;

use super::fixtures::account;

pub async fn cooldown_keeps_the_later_deadline<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let a = account(1);
    let long = port.set_cooldown(a, Duration::from_secs(120), Fault::UsageLimitReached).await?;
    let short = port.set_cooldown(a, Duration::from_secs(1), Fault::CloudflareChallenge).await?;
    ensure!(short == long, "a shorter cooldown keeps the later deadline: {short} vs {long}");
    let kept = port.cooldowns(&[a]).await?;
    ensure!(
        kept == vec![Some(Cooldown { until: long, fault: Some(Fault::UsageLimitReached) })],
        "its fault too: {kept:?}"
    );
    let longer = port.set_cooldown(a, Duration::from_secs(240), Fault::UpstreamRateLimited).await?;
    ensure!(longer > long, "a later deadline extends");
    let read = port.cooldowns(&[a, account(2)]).await?;
    let want = vec![Some(Cooldown { until: longer, fault: Some(Fault::UpstreamRateLimited) }), None];
    ensure!(read == want, "read back with the fault that set it: {read:?}");
    port.clear_cooldown(a).await?;
    ensure!(port.cooldowns(&[a]).await? == vec![None], "cleared");
    ensure!(port.cooldowns(&[]).await?.is_empty(), "empty in, empty out");
    Ok(())
}

pub async fn model_exclusions_are_bounded<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let a = account(1);
    for n in 0..(MAX_MODEL_EXCLUSIONS + 8) {
        // Later models end later, so the earliest ones are dropped first.
        port.exclude_model(a, &format!("model-{n:03}"), Duration::from_secs(600 + n as u64)).await?;
    }
    let exclusions = port.model_exclusions(a).await?;
    ensure!(exclusions.len() == MAX_MODEL_EXCLUSIONS, "bounded: {}", exclusions.len());
    ensure!(exclusions.iter().all(|e| e.model.as_str() >= "model-008"), "the soonest ending were dropped");
    ensure!(exclusions.windows(2).all(|w| w[0].until <= w[1].until), "soonest ending first");
    ensure!(port.model_exclusions(account(2)).await?.is_empty(), "per account");
    Ok(())
}
