//! Quota on a running gateway: a 429's headers mark an account exhausted and selection skips
//! it; after its reset the probe reads `allowed` (the only source that can: no traffic reaches
//! the account) and selection uses it again.

use std::time::Duration;

use serde_json::json;
use test_support::wait_until;
use upstream_sim::{AccountPatch, AccountSpec};

use super::served_by;
use crate::data_plane::make_sticky;
use crate::gateway::Gateway;

async fn quota_state(gateway: &Gateway, external: &str) -> (String, Option<f64>) {
    sqlx::query_as(
        "SELECT quota_state, EXTRACT(EPOCH FROM quota_observed_at)::float8 FROM provider_accounts \
         WHERE external_account_id = $1",
    )
    .bind(external)
    .fetch_one(&gateway.pool().await)
    .await
    .expect("quota")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exhausted_account_is_skipped_until_the_probe_reads_allowed() {
    let gateway = Gateway::start_with(
        vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")],
        &[
            ("SWITCHBOARD_ENGINE_SNAPSHOT_RELOAD_SECONDS", "1"),
            ("SWITCHBOARD_PROVIDERS_QUOTA_PROBE_PERIOD_SECONDS", "1"),
        ],
    )
    .await;
    make_sticky(&gateway).await;
    wait_until("acct-a to be preferred", Duration::from_secs(10), || async {
        (served_by(&gateway).await == "acct-a").then_some(())
    })
    .await
    .expect("sticky order");

    // acct-a's primary window is used up and resets in 3 s.
    let patch = AccountPatch {
        primary_used_percent: Some(100.0),
        primary_reset_after_seconds: Some(3),
        ..AccountPatch::default()
    };
    gateway.sim.update_account("acct-a", patch).expect("exhaust");
    assert_eq!(served_by(&gateway).await, "acct-b", "the 429 fails over");
    wait_until("acct-a to be stored exhausted", Duration::from_secs(5), || async {
        (quota_state(&gateway, "acct-a").await.0 == "exhausted").then_some(())
    })
    .await
    .expect("exhausted from the 429's headers");
    assert_eq!(served_by(&gateway).await, "acct-b", "an exhausted account is skipped");
    let calls_to_a = || gateway.sim.requests().iter().filter(|r| r.account_id.as_deref() == Some("acct-a")).count();
    let before_reset = calls_to_a();

    // After the reset the probe reads allowed, and acct-a serves again.
    wait_until("the probe to read allowed", Duration::from_secs(15), || async {
        (quota_state(&gateway, "acct-a").await.0 == "allowed").then_some(())
    })
    .await
    .expect("allowed again");
    let probes: Vec<_> = gateway.sim.requests()[..]
        .iter()
        .filter(|r| r.account_id.as_deref() == Some("acct-a"))
        .skip(before_reset)
        .map(|r| r.path.clone())
        .collect();
    assert!(probes.iter().any(|p| p.ends_with("/wham/usage")), "{probes:?}");
    assert!(!probes.iter().any(|p| p.ends_with("/codex/responses")), "no traffic before the probe: {probes:?}");
    // Sticky would stay on the last used account (acct-b); round robin takes the least recently
    // started one, acct-a, as soon as selection may use it again.
    gateway.cli(&["settings", "set", "rotationStrategy=round_robin"], None);
    crate::data_plane::wait_for_reload(&gateway).await;
    wait_until("acct-a to serve again", Duration::from_secs(10), || async {
        let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
        let ok = response.status() == 200;
        response.bytes().await.ok()?;
        (ok && gateway
            .sim
            .requests()
            .iter()
            .rev()
            .find(|r| r.path.ends_with("/codex/responses"))
            .and_then(|r| r.account_id.clone())
            .as_deref()
            == Some("acct-a"))
        .then_some(())
    })
    .await
    .expect("acct-a is used again");
}
