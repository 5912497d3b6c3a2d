//! Quota from the usage probe, and one consistent state from headers, `codex.rate_limits`
//! events and probes, written through the same revision-fenced recorder.

use std::sync::Arc;
use std::time::Duration;

use gateway_core::coordination::Cooldowns;
use gateway_core::domain::{AccountId, QuotaState, QuotaWindow};
use gateway_core::fault::Fault;
use gateway_core::observation::QuotaWriter;
use gateway_core::quota_probe::{QuotaProbe, QuotaProbeFailure, QuotaProber};
use gateway_core::quota_recorder::QuotaRecorder;
use provider_openai::rate_limits;
use provider_openai::usage::facts_from_usage;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::json;
use time::OffsetDateTime;
use upstream_sim::AccountSpec;

use crate::support::World;

async fn stored_quota(world: &World, account: AccountId) -> (String, i64, serde_json::Value) {
    sqlx::query_as("SELECT quota_state, quota_revision, quota_windows FROM provider_accounts WHERE id = $1")
        .bind(account.0)
        .fetch_one(&world.raw().await)
        .await
        .expect("quota")
}

#[test]
fn a_usage_answer_is_clear_evidence_only_with_a_rate_limit() {
    let now = OffsetDateTime::now_utc();
    let body = json!({"plan_type": "plus", "rate_limit": {"allowed": true, "limit_reached": false,
        "primary_window": {"used_percent": 12, "limit_window_seconds": 18000, "reset_after_seconds": 90, "reset_at": 1_773_860_656},
        "secondary_window": null}});
    let facts = facts_from_usage(&body, now).expect("facts");
    assert_eq!(facts.state, QuotaState::Allowed);
    assert_eq!(
        facts.windows,
        vec![QuotaWindow {
            name: "primary".to_owned(),
            used_percent: 12.0,
            window_minutes: Some(300),
            reset_at: Some(1_773_860_656),
            plan_type: Some("plus".to_owned()),
        }]
    );
    let reached = json!({"rate_limit": {"allowed": true, "limit_reached": true, "primary_window": null}});
    assert_eq!(facts_from_usage(&reached, now).expect("facts").state, QuotaState::Exhausted);
    assert_eq!(facts_from_usage(&json!({"plan_type": "plus", "rate_limit": null}), now), None);
    assert_eq!(facts_from_usage(&json!({"rate_limit": {"primary_window": {"used_percent": 3}}}), now), None);
}

#[tokio::test]
async fn the_probe_reads_the_accounts_quota() {
    let world = World::start().await;
    let mut spec = AccountSpec::openai("acct-1");
    spec.quota.primary_used_percent = 40.0;
    let (account, _) = world.account(spec).await;
    let provider = world.provider();
    let snapshots = world.snapshots().await;
    let entry = snapshots.current().account(account).cloned().expect("entry");
    let facts = provider.probe_quota(&entry).await.expect("probe").expect("clear reading");
    assert_eq!(facts.state, QuotaState::Allowed);
    assert_eq!(facts.windows[0].used_percent, 40.0);
    world.sim.exhaust_quota("acct-1").expect("exhaust");
    let facts = provider.probe_quota(&entry).await.expect("probe").expect("clear reading");
    assert_eq!(facts.state, QuotaState::Exhausted);
    let request = world.sim.requests().into_iter().rev().find(|r| r.path.ends_with("/wham/usage")).expect("probe");
    assert_eq!(request.header("chatgpt-account-id"), Some("acct-1"));
    assert!(request.header("user-agent").is_some_and(|ua| ua.starts_with("codex_cli_rs/")));
}

#[tokio::test]
async fn a_refused_probe_never_touches_the_credential() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    world.sim.expire_access_tokens("acct-1").expect("expire upstream");
    let snapshots = world.snapshots().await;
    let recorder = Arc::new(QuotaRecorder::new(world.store.clone(), world.store.clone(), snapshots.clone()));
    let prober = QuotaProber::new(vec![Arc::new(world.provider())], recorder, world.redis(), snapshots);
    let refused = prober.probe_account(account).await.expect_err("401");
    assert!(matches!(refused, gateway_core::quota_probe::QuotaProbeError::Failed(QuotaProbeFailure::Unauthorized)));
    let (revision, state, reason): (i64, String, Option<String>) = sqlx::query_as(
        "SELECT credential_revision, credential_state, credential_reason FROM provider_accounts WHERE id = $1",
    )
    .bind(account.0)
    .fetch_one(&world.raw().await)
    .await
    .expect("facts");
    assert_eq!((revision, state.as_str(), reason), (1, "active", None));
    assert_eq!(world.token_calls(), 0, "a probe never refreshes by itself");
    assert_eq!(stored_quota(&world, account).await.0, "unknown", "no evidence, no quota write");
}

#[tokio::test]
async fn headers_events_and_probes_end_in_one_state() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    let snapshots = world.snapshots().await;
    let recorder = Arc::new(QuotaRecorder::new(world.store.clone(), world.store.clone(), snapshots.clone()));
    let now = OffsetDateTime::now_utc();
    let at = |s: i64| now + time::Duration::seconds(s);
    let reset = now.unix_timestamp() + 3600;

    // 1. A 429's headers: exhausted.
    let mut headers = HeaderMap::new();
    headers.insert("x-codex-primary-used-percent", HeaderValue::from_static("100"));
    headers.insert("x-codex-primary-window-minutes", HeaderValue::from_static("300"));
    headers.insert("x-codex-primary-reset-at", HeaderValue::from_str(&reset.to_string()).expect("header"));
    let from_headers = rate_limits::from_headers(&headers, QuotaState::Exhausted, at(-30)).expect("facts");
    recorder.write(account, from_headers).await;
    assert_eq!(stored_quota(&world, account).await.0, "exhausted");

    // 2. A later in-stream event says the same window is at 100 %.
    let event = json!({"type": "codex.rate_limits", "rate_limits": {"limit_reached": true,
        "primary": {"used_percent": 100.0, "window_minutes": 300, "reset_at": reset}}});
    let from_event = rate_limits::from_event(event.to_string().as_bytes(), at(-20)).expect("facts");
    recorder.write(account, from_event).await;
    let (state, revision_after_event, _) = stored_quota(&world, account).await;
    assert_eq!(state, "exhausted");

    // 3. The probe after the reset: allowed, and the 429 cooldown is lifted with it.
    let cooldowns = world.redis();
    cooldowns.set_cooldown(account, Duration::from_secs(3600), Fault::UsageLimitReached).await.expect("cooldown");
    let prober = QuotaProber::new(vec![Arc::new(world.provider())], recorder.clone(), cooldowns.clone(), snapshots);
    let read = prober.probe_account(account).await.expect("probe").expect("reading");
    assert_eq!(read.state, QuotaState::Allowed);
    let (state, revision, windows) = stored_quota(&world, account).await;
    assert_eq!(state, "allowed");
    assert!(revision > revision_after_event);
    assert_eq!(windows[0]["used_percent"], json!(0.0));
    assert_eq!(cooldowns.cooldowns(&[account]).await.expect("read"), vec![None]);

    // 4. A late observation older than the probe cannot bring "exhausted" back.
    let stale = rate_limits::from_headers(&headers, QuotaState::Exhausted, at(-10)).expect("facts");
    recorder.write(account, stale).await;
    assert_eq!(stored_quota(&world, account).await.0, "allowed");
}

#[tokio::test]
async fn an_exhausted_account_is_probed_once_its_reset_passed() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    let now = OffsetDateTime::now_utc();
    // The 5-hour window is full and resets in a few seconds (whole seconds: at least 2 s from
    // now, so the first check below runs before it even on a loaded machine); the weekly one is
    // not full and resets in a week: the account comes back after the first.
    let window = |name: &str, used_percent, minutes, reset_in| QuotaWindow {
        name: name.to_owned(),
        used_percent,
        window_minutes: Some(minutes),
        reset_at: Some(now.unix_timestamp() + reset_in),
        plan_type: None,
    };
    let windows = vec![window("primary", 100.0, 300, 3), window("secondary", 30.0, 10080, 604_800)];
    let exhausted = gateway_core::domain::QuotaFacts { state: QuotaState::Exhausted, windows, observed_at: Some(now) };
    let recorder = QuotaRecorder::new(world.store.clone(), world.store.clone(), world.snapshots().await);
    recorder.write(account, exhausted).await;
    let snapshots = world.snapshots().await;
    let recorder = Arc::new(QuotaRecorder::new(world.store.clone(), world.store.clone(), snapshots.clone()));
    let prober = QuotaProber::new(vec![Arc::new(world.provider())], recorder, world.redis(), snapshots);
    // Observed just now and not reset yet: traffic skips it and so does the probe.
    assert_eq!(prober.run_due(Duration::from_secs(3600), 10).await.probed, 0);
    test_support::wait_until("the reset to pass and the probe to run", Duration::from_secs(15), || async {
        (prober.run_due(Duration::from_secs(3600), 10).await.written == 1).then_some(())
    })
    .await
    .expect("probed after the reset");
    assert_eq!(stored_quota(&world, account).await.0, "allowed");
}

#[tokio::test]
async fn a_connection_test_refreshes_once_when_the_access_token_is_refused() {
    use gateway_admin::oauth::account_checks::{RefreshNow, refresh_now, test_connection};

    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    let snapshots = world.snapshots().await;
    let recorder = Arc::new(QuotaRecorder::new(world.store.clone(), world.store.clone(), snapshots.clone()));
    let prober = QuotaProber::new(vec![Arc::new(world.provider())], recorder, world.redis(), snapshots);
    let refresher = world.refresher(world.store.clone()).await;

    let healthy = test_connection(&refresher, &prober, account).await;
    assert!(healthy.ok && !healthy.refreshed, "{healthy:?}");
    assert_eq!(world.token_calls(), 0);

    world.sim.expire_access_tokens("acct-1").expect("expire upstream");
    let recovered = test_connection(&refresher, &prober, account).await;
    assert!(recovered.ok && recovered.refreshed, "{recovered:?}");
    assert_eq!(recovered.quota.map(|q| q.state), Some(QuotaState::Allowed));
    assert_eq!(world.token_calls(), 1);

    let now = refresh_now(&refresher, account).await.expect("refresh now");
    assert!(matches!(now, RefreshNow::Renewed(revision) if revision.0 == 3), "{now:?}");
}
