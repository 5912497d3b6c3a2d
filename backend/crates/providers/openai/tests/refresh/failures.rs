//! Failure handling: permanent refusals are terminal at once with a stable reason; transient
//! failures keep the credential and back off, never past a working token's expiry, and give up
//! at expiry + 24 h.

use gateway_core::credential_refresh::{RefreshError, RefreshTrigger};
use upstream_sim::{AccountSpec, RefreshOutcome};

use super::facts;
use crate::support::World;

async fn refused_with(outcome: RefreshOutcome) -> (RefreshError, String, Option<String>, Option<f64>) {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    world.sim.push_refresh_outcomes("acct-1", vec![outcome]).expect("script");
    let refresher = world.refresher(world.store.clone()).await;
    let error = refresher.refresh(account, RefreshTrigger::Manual).await.expect_err("refused");
    let (revision, state, reason, _, next, _) = facts(&world, account).await;
    assert_eq!(revision, 1, "the credential document is kept");
    (error, state, reason, next)
}

#[tokio::test]
async fn permanent_refusals_are_terminal_at_once_with_their_code() {
    for (outcome, code) in [
        (RefreshOutcome::Expired, "refresh_token_expired"),
        (RefreshOutcome::Reused, "refresh_token_reused"),
        (RefreshOutcome::Invalidated, "refresh_token_invalidated"),
        (RefreshOutcome::InvalidGrant, "invalid_grant"),
    ] {
        let (error, state, reason, next) = refused_with(outcome).await;
        assert!(matches!(&error, RefreshError::Terminal { reason } if reason == code), "{error:?}");
        assert_eq!((state.as_str(), reason.as_deref()), ("invalid", Some(code)));
        assert_eq!(next, None, "no further refresh is scheduled");
    }
}

#[tokio::test]
async fn a_banned_account_is_marked_banned() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    world.sim.ban_account("acct-1").expect("ban");
    let refresher = world.refresher(world.store.clone()).await;
    let error = refresher.refresh(account, RefreshTrigger::Manual).await.expect_err("refused");
    assert!(matches!(&error, RefreshError::Terminal { reason } if reason == "account_deactivated"), "{error:?}");
    let (_, state, reason, ..) = facts(&world, account).await;
    assert_eq!((state.as_str(), reason.as_deref()), ("banned", Some("account_deactivated")));
}

#[tokio::test]
async fn transient_failures_keep_the_credential_and_back_off() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    let failure = RefreshOutcome::ServerError { status: 502 };
    world.sim.push_refresh_outcomes("acct-1", vec![failure.clone(), failure]).expect("script");
    let refresher = world.refresher(world.store.clone()).await;
    for (attempt, delay) in [(1, 5.0), (2, 15.0)] {
        let error = refresher.refresh(account, RefreshTrigger::Manual).await.expect_err("transient");
        assert!(matches!(error, RefreshError::Transient { .. }), "{error:?}");
        let (revision, state, reason, failures, next, _) = facts(&world, account).await;
        assert_eq!((revision, state.as_str(), reason, failures), (1, "active", None, attempt));
        let next = next.expect("a retry is scheduled");
        assert!((delay - 2.0..=delay + 1.0).contains(&next), "attempt {attempt}: next in {next} s");
    }
    // The next success resets the count and schedules ahead of expiry.
    refresher.refresh(account, RefreshTrigger::Manual).await.expect("renewed");
    let (revision, state, _, failures, next, expires) = facts(&world, account).await;
    assert_eq!((revision, state.as_str(), failures), (2, "active", 0));
    let (next, expires) = (next.expect("next"), expires.expect("expiry"));
    assert!((expires - 300.0 - next).abs() < 5.0, "refresh margin before expiry: next {next}, expires {expires}");
}

#[tokio::test]
async fn the_backoff_never_passes_a_working_tokens_expiry() {
    let world = World::start().await;
    let mut spec = AccountSpec::openai("acct-1");
    spec.access_token_ttl_secs = Some(60);
    let (account, _) = world.account(spec).await;
    // The fourth failure in a row would wait 135 s; the token dies in 60.
    sqlx::query("UPDATE provider_accounts SET refresh_failure_count = 3 WHERE id = $1")
        .bind(account.0)
        .execute(&world.raw().await)
        .await
        .expect("update");
    world.sim.push_refresh_outcomes("acct-1", vec![RefreshOutcome::ServerError { status: 503 }]).expect("script");
    let refresher = world.refresher(world.store.clone()).await;
    refresher.refresh(account, RefreshTrigger::Manual).await.expect_err("transient");
    let (_, state, _, failures, next, expires) = facts(&world, account).await;
    assert_eq!((state.as_str(), failures), ("active", 4));
    let (next, expires) = (next.expect("next"), expires.expect("expiry"));
    assert!((next - expires).abs() < 1.0 && next <= 61.0, "retry at the expiry: next {next}, expires {expires}");
}

#[tokio::test]
async fn transient_failures_give_up_at_expiry_plus_a_day() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    sqlx::query("UPDATE provider_accounts SET access_token_expires_at = now() - interval '25 hours' WHERE id = $1")
        .bind(account.0)
        .execute(&world.raw().await)
        .await
        .expect("update");
    world.sim.push_refresh_outcomes("acct-1", vec![RefreshOutcome::ServerError { status: 500 }]).expect("script");
    let refresher = world.refresher(world.store.clone()).await;
    let error = refresher.refresh(account, RefreshTrigger::Manual).await.expect_err("given up");
    assert!(matches!(&error, RefreshError::Terminal { reason } if reason == "refresh_failed_past_expiry"), "{error:?}");
    let (_, state, reason, _, next, _) = facts(&world, account).await;
    assert_eq!((state.as_str(), reason.as_deref(), next), ("expired", Some("refresh_failed_past_expiry"), None));
}

#[tokio::test]
async fn the_refresh_carries_codex_headers() {
    let world = World::start().await;
    let (account, _) = world.account(AccountSpec::openai("acct-1")).await;
    let refresher = world.refresher(world.store.clone()).await;
    refresher.refresh(account, RefreshTrigger::Manual).await.expect("renewed");
    let request = world
        .sim
        .requests()
        .into_iter()
        .rfind(|r| r.path.ends_with("/oauth/token"))
        .expect("the refresh reached the issuer");
    assert_eq!(request.header("originator"), Some("codex_cli_rs"));
    let agent = request.header("user-agent").expect("a user agent");
    assert!(agent.starts_with("codex_cli_rs/") && !agent.contains("switchboard"), "{agent}");
    assert_eq!(
        request.json().and_then(|b| b["grant_type"].as_str().map(str::to_owned)).as_deref(),
        Some("refresh_token")
    );
}
