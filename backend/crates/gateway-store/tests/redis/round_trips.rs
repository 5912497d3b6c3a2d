//! SPEC §3's budget, measured on a private server's command statistics: one acquire is one
//! client command (EVALSHA) and one release is one more (with the account feedback, the spend
//! and the provider circuit's outcome); no PING, no script load, no MULTI. Long streams add
//! nothing per request: one heartbeat call per 256 held requests and period.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::{
    AffinityRequest, CircuitOutcome, CircuitPolicy, CircuitReport, HeldSlots, ReleaseRequest, RequestSlots,
    SessionSignal, SignalSource, Spend, SpendBudgets,
};
use gateway_core::domain::{AccountId, ClientKeyId, NanoUsd, ProviderKind};
use gateway_store::redis::{RedisCoordination, RedisSettings};
use test_support::wait_until;

use super::private_server::PrivateRedis;
use crate::coordination_contract::fixtures::{boot, candidate, granted, limits, release, request};

/// Calls per command since the last `CONFIG RESETSTAT`, leaving out the statistics commands.
async fn command_calls(connection: &mut redis::aio::MultiplexedConnection) -> anyhow::Result<Vec<(String, u64)>> {
    let info: String = redis::cmd("INFO").arg("commandstats").query_async(connection).await?;
    let mut calls = Vec::new();
    for line in info.lines().filter_map(|line| line.strip_prefix("cmdstat_")) {
        let Some((name, stats)) = line.split_once(':') else { continue };
        if name == "info" || name.starts_with("config") {
            continue;
        }
        let count = stats.split(',').find_map(|field| field.strip_prefix("calls=")).and_then(|n| n.parse().ok());
        calls.push((name.to_owned(), count.unwrap_or(0)));
    }
    Ok(calls)
}

#[tokio::test]
async fn acquire_and_release_are_one_round_trip_each() -> anyhow::Result<()> {
    let server = PrivateRedis::start("round-trips")?;
    let coordination = RedisCoordination::new(RedisSettings::new(server.url(), "budget"))?;
    wait_until("the private redis-server", Duration::from_secs(10), || async { coordination.ping().await.ok() })
        .await?;
    let mut stats = redis::Client::open(server.url())?.get_multiplexed_async_connection().await?;

    let signal = SessionSignal::parse(SignalSource::SessionHeader, b"s")?;
    let full_request = || {
        let mut wanted = request(vec![candidate(AccountId(1), 100), candidate(AccountId(2), 100)]);
        let mut admission = limits(ClientKeyId(1), Some(100), Some(1000));
        admission.budgets = SpendBudgets {
            daily_tokens: Some(1 << 40),
            monthly_tokens: Some(1 << 40),
            daily_cost: Some(NanoUsd(1 << 50)),
            monthly_cost: Some(NanoUsd(1 << 50)),
        };
        wanted.admission = Some(admission);
        wanted.affinity = Some(AffinityRequest {
            key: signal.key(ClientKeyId(1), ProviderKind::Openai),
            idle_ttl: Duration::from_secs(3600),
        });
        wanted
    };
    // Warm-up: the server learns the scripts (NOSCRIPT -> EVAL) once.
    let warm = granted(coordination.acquire(&full_request()).await?)?;
    release(&coordination, &warm).await?;

    let _: () = redis::cmd("CONFIG").arg("RESETSTAT").query_async(&mut stats).await?;
    for _ in 0..10 {
        let wanted = full_request();
        let grant = granted(coordination.acquire(&wanted).await?)?;
        let period = wanted.admission.map(|a| a.period).expect("admission");
        let spend = Spend { client_key: ClientKeyId(1), period, tokens: 120, cost: NanoUsd(3_000) };
        // The circuit learns the outcome in the same script: no round trip of its own.
        let circuit = CircuitReport {
            provider: ProviderKind::Openai,
            outcome: Some(CircuitOutcome::Success),
            probe: grant.probe,
            policy: CircuitPolicy { failure_threshold: 5, open_for: Duration::from_secs(30) },
        };
        let release =
            ReleaseRequest { leases: grant.held(), feedback: None, spend: Some(spend), circuit: Some(circuit) };
        coordination.release(&release).await?;
    }
    // Command statistics also count the commands scripts run; TIME runs once per script.
    let calls = command_calls(&mut stats).await?;
    let count = |name: &str| calls.iter().find(|(n, _)| n == name).map_or(0, |(_, c)| *c);
    ensure!(count("evalsha") == 20, "10 acquires + 10 releases = 20 EVALSHA: {calls:?}");
    ensure!(count("time") == 20, "20 script executions: {calls:?}");
    for extra in ["ping", "eval", "script|load", "hello", "client|setinfo", "unwatch", "multi", "exec"] {
        ensure!(count(extra) == 0, "no {extra} on the hot path: {calls:?}");
    }
    Ok(())
}

#[tokio::test]
async fn one_heartbeat_renews_every_held_slot_in_one_round_trip_per_256() -> anyhow::Result<()> {
    let server = PrivateRedis::start("heartbeat-round-trips")?;
    let coordination = Arc::new(RedisCoordination::new(RedisSettings::new(server.url(), "budget"))?);
    wait_until("the private redis-server", Duration::from_secs(10), || async { coordination.ping().await.ok() })
        .await?;
    let mut stats = redis::Client::open(server.url())?.get_multiplexed_async_connection().await?;
    let registry = HeldSlots::new(coordination.clone(), boot());
    let mut guards = Vec::new();
    for _ in 0..300 {
        let mut wanted = request(vec![candidate(AccountId(1), 1000)]);
        wanted.admission = Some(limits(ClientKeyId(1), Some(1000), None));
        guards.push(registry.guard(granted(coordination.acquire(&wanted).await?)?.held()));
    }
    // Warm-up: the server learns the heartbeat script once.
    registry.beat(coordination.as_ref(), Duration::from_secs(30)).await?;

    let _: () = redis::cmd("CONFIG").arg("RESETSTAT").query_async(&mut stats).await?;
    let outcome = registry.beat(coordination.as_ref(), Duration::from_secs(30)).await?;
    ensure!(outcome.renewed == 600 && outcome.lost == 0, "300 account + 300 admission slots: {outcome:?}");
    let calls = command_calls(&mut stats).await?;
    let count = |name: &str| calls.iter().find(|(n, _)| n == name).map_or(0, |(_, c)| *c);
    ensure!(count("evalsha") == 2, "300 held requests = 2 heartbeat calls (256 + 44): {calls:?}");
    drop(guards);
    ensure!(registry.wait_for_releases(Duration::from_secs(10)).await, "the dropped guards released");
    Ok(())
}
