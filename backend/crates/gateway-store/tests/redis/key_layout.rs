//! The documented key layout (docs/coordination.md): prefix, hash tags, what has a TTL.

use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::{
    ContinuationPin, ContinuationPins, CoordinationErrorKind, OAuthFlowKey, OAuthPendingFlows, PinScope,
    ReplicaHeartbeats, RequestSlots,
};
use gateway_core::domain::{AccountId, ClientKeyId, ProviderKind, ReplicaName};
use gateway_store::redis::{RedisCoordination, RedisSettings};
use test_support::{redis_url, unique_prefix};

use crate::coordination_contract::fixtures::{candidate, granted, limits, request};

async fn keys(prefix: &str) -> anyhow::Result<Vec<String>> {
    let client = redis::Client::open(redis_url())?;
    let mut connection = client.get_multiplexed_async_connection().await?;
    let mut keys: Vec<String> = redis::cmd("KEYS").arg(format!("*{prefix}*")).query_async(&mut connection).await?;
    keys.sort();
    Ok(keys)
}

#[tokio::test]
async fn keys_carry_the_prefix_and_one_hash_tag_per_script() -> anyhow::Result<()> {
    let prefix = unique_prefix("key_layout");
    let port = RedisCoordination::new(RedisSettings::new(redis_url(), prefix.clone()))?;
    let mut wanted = request(vec![candidate(AccountId(5), 2)]);
    wanted.admission = Some(limits(ClientKeyId(9), Some(4), Some(100)));
    let grant = granted(port.acquire(&wanted).await?)?;
    port.heartbeat(wanted.owner, &[grant.held()], Duration::from_secs(60)).await?;
    let replica = ReplicaName::parse("host:8080").map_err(anyhow::Error::msg)?;
    port.claim_replica(&replica, wanted.owner).await?;
    let pin = ContinuationPin {
        client_key: ClientKeyId(9),
        scope: PinScope::All,
        provider: ProviderKind::Openai,
        account: AccountId(5),
        upstream_response_id: None,
    };
    port.pin(b"resp_1", &pin, Duration::from_secs(60)).await?;
    let flow = OAuthFlowKey::derive(ProviderKind::Xai, b"state");
    port.create_flow(&flow, "owner", b"payload", Duration::from_secs(60)).await?;

    let found = keys(&prefix).await?;
    let hot = format!("{{{prefix}}}");
    let expected_hot = [
        format!("{hot}:acct:5"),
        format!("{hot}:acct:5:slots"),
        format!("{hot}:adm:9:rpm"),
        format!("{hot}:adm:9:slots"),
        format!("{hot}:boot:{}", wanted.owner),
        format!("{hot}:boot:{}:slots", wanted.owner),
        format!("{hot}:replica:host:8080"),
    ];
    for key in &expected_hot {
        ensure!(found.contains(key), "{key} missing from {found:?}");
    }
    ensure!(found.iter().any(|k| k.starts_with(&format!("{prefix}:pin:{{")) && k.ends_with('}')), "{found:?}");
    ensure!(found.contains(&format!("{prefix}:oauth:v1:xai:{{{}}}", flow.to_hex())), "{found:?}");
    ensure!(!found.iter().any(|k| k.contains(":unused")), "placeholder keys are never written: {found:?}");
    Ok(())
}

#[tokio::test]
async fn bad_prefixes_and_urls_are_refused_at_start() -> anyhow::Result<()> {
    for prefix in ["", "with{brace}", "with space"] {
        let refused = RedisCoordination::new(RedisSettings::new(redis_url(), prefix));
        ensure!(refused.is_err_and(|e| e.kind() == CoordinationErrorKind::Internal), "prefix {prefix:?} refused");
    }
    ensure!(RedisCoordination::new(RedisSettings::new("not a url", "sb")).is_err(), "bad url refused");
    Ok(())
}
