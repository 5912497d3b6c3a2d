//! A private `redis-server` is killed mid-run and restarted on the same port: calls fail closed
//! with a typed error while it is down and succeed again afterwards, without a new adapter.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::{
    ChangeEvent, ChangeNotifier, Cooldowns, CoordinationError, CoordinationErrorKind, Leases, ReplicaId, RequestSlots,
};
use gateway_core::domain::AccountId;
use gateway_store::redis::{RedisCoordination, RedisSettings};
use test_support::wait_until;

use super::private_server::PrivateRedis;
use crate::coordination_contract::fixtures::{candidate, granted, release, request};

fn fails_closed<T: std::fmt::Debug>(what: &str, result: Result<T, CoordinationError>) -> anyhow::Result<()> {
    match result {
        Err(error) => {
            ensure!(error.kind() == CoordinationErrorKind::Unavailable, "{what}: {error} must be Unavailable");
            ensure!(error.kind().code() == "coordination_unavailable" && error.kind().http_status() == 503, "{what}");
            Ok(())
        }
        Ok(value) => anyhow::bail!("{what} succeeded while Redis was down: {value:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_fail_closed_while_redis_is_down_and_recover_after_restart() -> anyhow::Result<()> {
    let mut server = PrivateRedis::start("outage")?;
    let mut settings = RedisSettings::new(server.url(), "outage");
    settings.connect_timeout = Duration::from_millis(500);
    settings.command_timeout = Duration::from_millis(500);
    let coordination = Arc::new(RedisCoordination::new(settings)?);
    wait_until("the private redis-server to accept connections", Duration::from_secs(10), || async {
        coordination.ping().await.ok()
    })
    .await?;

    let account = AccountId(1);
    let grant = granted(coordination.acquire(&request(vec![candidate(account, 10)])).await?)?;
    let mut changes = coordination.subscribe().await?;

    // Load during the kill: every failure is typed, nothing panics.
    let hammer = {
        let coordination = Arc::clone(&coordination);
        tokio::spawn(async move {
            let mut failures = Vec::new();
            for _ in 0..200 {
                match coordination.acquire(&request(vec![candidate(AccountId(2), 1000)])).await {
                    Ok(_) => {}
                    Err(error) => failures.push(error.kind()),
                }
                tokio::task::yield_now().await;
            }
            failures
        })
    };
    server.kill()?;
    let failures = hammer.await?;
    ensure!(failures.iter().all(|kind| *kind == CoordinationErrorKind::Unavailable), "typed: {failures:?}");

    fails_closed("acquire", coordination.acquire(&request(vec![candidate(account, 10)])).await)?;
    fails_closed("release", release(coordination.as_ref(), &grant).await.map_err(downcast))?;
    fails_closed("cooldowns", coordination.cooldowns(&[account]).await)?;
    fails_closed(
        "claim_period",
        coordination.claim_period("task", Duration::from_secs(1), &ReplicaId::random()).await,
    )?;
    fails_closed("publish", coordination.publish_config_revision(1).await)?;
    fails_closed("ping", coordination.ping().await)?;

    server.spawn()?;
    // Same adapter, no restart: it reconnects and the new server (empty script cache) gets the
    // scripts again through the NOSCRIPT fallback.
    let regrant = wait_until("acquire to succeed after the restart", Duration::from_secs(10), || async {
        coordination.acquire(&request(vec![candidate(account, 10)])).await.ok()
    })
    .await?;
    let regrant = granted(regrant)?;
    ensure!(regrant.in_flight == 1, "the restarted server holds fresh state: {regrant:?}");
    ensure!(regrant.account.token > grant.account.token, "fencing tokens stay monotonic across the data loss");
    coordination.cooldowns(&[account]).await?;

    // The subscription resubscribes by itself and says notifications may have been missed.
    let resync = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match changes.next().await {
                Some(ChangeEvent::Resync) => return true,
                Some(ChangeEvent::ConfigRevision(_)) => {}
                None => return false,
            }
        }
    })
    .await?;
    ensure!(resync, "the subscription reports Resync after reconnecting");
    coordination.publish_config_revision(7).await?;
    let event = tokio::time::timeout(Duration::from_secs(5), changes.next()).await?;
    ensure!(event == Some(ChangeEvent::ConfigRevision(7)), "notifications flow again: {event:?}");
    Ok(())
}

fn downcast(error: anyhow::Error) -> CoordinationError {
    error.downcast::<CoordinationError>().unwrap_or_else(|other| CoordinationError::Protocol(other.to_string()))
}
