//! A change subscription owns its pub/sub connection: dropping it unsubscribes.

use std::time::Duration;

use gateway_core::coordination::ChangeNotifier;
use gateway_store::redis::{RedisCoordination, RedisSettings};
use test_support::{redis_url, unique_prefix, wait_until};

async fn subscribers(connection: &mut redis::aio::MultiplexedConnection, channel: &str) -> anyhow::Result<i64> {
    let counts: Vec<(String, i64)> = redis::cmd("PUBSUB").arg("NUMSUB").arg(channel).query_async(connection).await?;
    Ok(counts.first().map_or(0, |(_, n)| *n))
}

#[tokio::test]
async fn dropping_a_subscription_closes_its_pubsub_connection() -> anyhow::Result<()> {
    let prefix = unique_prefix("subscriptions");
    let channel = format!("{prefix}:changes");
    let coordination = RedisCoordination::new(RedisSettings::new(redis_url(), prefix))?;
    let mut stats = redis::Client::open(redis_url())?.get_multiplexed_async_connection().await?;

    let first = coordination.subscribe().await?;
    let second = coordination.subscribe().await?;
    assert_eq!(subscribers(&mut stats, &channel).await?, 2);
    drop(first);
    wait_until("one subscriber left", Duration::from_secs(5), || {
        let mut stats = stats.clone();
        let channel = channel.clone();
        async move { (subscribers(&mut stats, &channel).await.ok()? == 1).then_some(()) }
    })
    .await?;
    drop(second);
    wait_until("no subscriber left", Duration::from_secs(5), || {
        let mut stats = stats.clone();
        let channel = channel.clone();
        async move { (subscribers(&mut stats, &channel).await.ok()? == 0).then_some(()) }
    })
    .await?;
    Ok(())
}
