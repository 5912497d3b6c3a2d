//! Contract: change notifications reach every subscriber.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::{ChangeEvent, ChangeSubscription, Coordination};

async fn next_revision(subscription: &mut ChangeSubscription) -> anyhow::Result<Option<ChangeEvent>> {
    Ok(tokio::time::timeout(Duration::from_secs(5), subscription.next()).await?)
}

pub async fn notifications_reach_every_subscriber<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let mut first = port.subscribe().await?;
    let mut second = port.subscribe().await?;
    port.publish_config_revision(41).await?;
    port.publish_config_revision(42).await?;
    for subscription in [&mut first, &mut second] {
        ensure!(next_revision(subscription).await? == Some(ChangeEvent::ConfigRevision(41)), "in order");
        ensure!(next_revision(subscription).await? == Some(ChangeEvent::ConfigRevision(42)), "in order");
    }
    drop(first);
    port.publish_config_revision(43).await?;
    ensure!(next_revision(&mut second).await? == Some(ChangeEvent::ConfigRevision(43)), "survivor still hears");
    Ok(())
}
