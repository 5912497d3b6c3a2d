//! Issue 33's must-shows on the real binary: a Cloudflare challenge is not a ban (the request is
//! served by another account, the challenged one serves again once the challenge clears, its
//! stored state never leaves `normal`, and its cookie jar keeps the challenge's cookie for its own
//! requests only); a `Retry-After: 3` brings the account back within seconds and the pool's
//! refusal says so; no local or ambiguous fault (TLS, DNS, a proxy, a timeout, an edge page, a
//! challenge) changes what is stored about an account.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sqlx::Row;
use upstream_sim::{AccountPatch, AccountSpec, SettingsPatch, TlsFault};

use super::wait_for_reload;
use crate::admin_api::{Admin, gateway as admin_gateway};
use crate::gateway::Gateway;

/// What is stored about an account (not the cooldowns: they are coordination state).
async fn stored_state(gateway: &Gateway, external: &str) -> (String, Option<String>, i64, String, i64) {
    let row = sqlx::query(
        "SELECT credential_state, credential_reason, credential_revision, quota_state, quota_revision \
         FROM provider_accounts WHERE external_account_id = $1",
    )
    .bind(external)
    .fetch_one(&gateway.pool().await)
    .await
    .expect("account row");
    (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4))
}

async fn account_id(admin: &Admin, external: &str) -> i64 {
    let list = admin.ok("/accounts").await;
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|a| a["externalAccountId"] == external)
        .and_then(|a| a["id"].as_i64())
        .expect("account")
}

fn inference<'a>(
    requests: &'a [upstream_sim::RecordedRequest],
    account: &str,
) -> Vec<&'a upstream_sim::RecordedRequest> {
    requests
        .iter()
        .filter(|r| {
            r.method == "POST" && r.path.ends_with("/codex/responses") && r.account_id.as_deref() == Some(account)
        })
        .collect()
}

async fn turn(gateway: &Gateway) -> (u16, String) {
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

#[tokio::test]
async fn a_challenged_account_is_skipped_briefly_keeps_its_cookie_and_is_never_written_off() {
    let gateway = admin_gateway(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], &[]).await;
    gateway.cli(&["settings", "set", "rotationStrategy=sticky"], None);
    wait_for_reload(&gateway).await;
    let admin = Admin::login(&gateway).await;
    let a = account_id(&admin, "acct-a").await;
    let before = stored_state(&gateway, "acct-a").await;
    gateway.sim.update_account("acct-a", AccountPatch { challenged: Some(true), ..Default::default() }).expect("patch");

    // 1. Challenged: the request is served by acct-b.
    let (status, text) = turn(&gateway).await;
    assert_eq!(status, 200, "{text}");
    let requests = gateway.sim.requests();
    let challenged = inference(&requests, "acct-a");
    assert_eq!(challenged.len(), 1, "acct-a was tried once");
    let set = challenged[0].set_cookies.iter().find(|c| c.starts_with("__cf_bm=")).expect("the challenge set __cf_bm");
    let cf_bm = set.split(';').next().expect("name=value").to_owned();
    assert_eq!(inference(&requests, "acct-b").len(), 1, "acct-b served");

    // 2. The admin view says why acct-a is skipped and until when; the jar holds the cookie.
    let detail = admin.ok(&format!("/accounts/{a}")).await;
    assert_eq!(detail["account"]["state"], "rate_limited", "{detail}");
    assert_eq!(detail["account"]["stateReason"], "cloudflare_challenge", "{detail}");
    let until = detail["account"]["stateUntil"].as_str().expect("until");
    let until = time::OffsetDateTime::parse(until, &time::format_description::well_known::Rfc3339).expect("time");
    let left = until - time::OffsetDateTime::now_utc();
    assert!(left <= time::Duration::seconds(15) && left > time::Duration::ZERO, "a brief cooldown: {left}");
    let jar = test_support::wait_until("the cookie jar to be stored", Duration::from_secs(10), || async {
        let detail = admin.ok(&format!("/accounts/{a}")).await;
        let jar = detail["cookieJar"].clone();
        jar["cookies"].as_array()?.iter().any(|c| c["name"] == "__cf_bm").then_some(jar)
    })
    .await
    .expect("the jar lists __cf_bm");
    assert_eq!(jar["egressPath"], "direct");
    assert!(jar["cookies"][0]["expiresAt"].is_string(), "{jar}");
    assert!(!jar.to_string().contains(&cf_bm[8..]), "the admin view never shows a cookie's value");
    assert_eq!(stored_state(&gateway, "acct-a").await, before, "a challenge changes nothing stored");

    // 3. The challenge clears: acct-a serves again within a minute, sending the cookie (round
    // robin prefers the account used least recently, as any rotation reaches it).
    gateway.cli(&["settings", "set", "rotationStrategy=round_robin"], None);
    wait_for_reload(&gateway).await;
    gateway
        .sim
        .update_account("acct-a", AccountPatch { challenged: Some(false), ..Default::default() })
        .expect("patch");
    let cleared = Instant::now();
    gateway.sim.clear_requests();
    test_support::wait_until("acct-a to serve again", Duration::from_secs(60), || async {
        let (status, _) = turn(&gateway).await;
        let served = inference(&gateway.sim.requests(), "acct-a").len();
        (status == 200 && served > 0).then_some(())
    })
    .await
    .expect("acct-a serves again");
    println!("acct-a served again {:?} after the challenge cleared", cleared.elapsed());
    let requests = gateway.sim.requests();
    let again = inference(&requests, "acct-a");
    let cookie = again[0].header("cookie").expect("the next request to acct-a carries its cookie");
    assert!(cookie.contains(&cf_bm), "{cookie} carries {cf_bm}");
    let detail = admin.ok(&format!("/accounts/{a}")).await;
    assert_eq!(detail["account"]["state"], "normal", "{detail}");
    // Cookies of one account never reach another account.
    gateway.sim.clear_requests();
    gateway.sim.update_account("acct-a", AccountPatch { challenged: Some(true), ..Default::default() }).expect("patch");
    let (status, _) = turn(&gateway).await;
    assert_eq!(status, 200);
    for request in inference(&gateway.sim.requests(), "acct-b") {
        let cookie = request.header("cookie").unwrap_or_default();
        assert!(!cookie.contains("__cf_bm"), "acct-b never gets acct-a's cookie: {cookie}");
    }
    assert_eq!(stored_state(&gateway, "acct-a").await, before, "still nothing stored about acct-a");
}

#[tokio::test]
async fn a_retry_after_of_3_seconds_brings_the_account_back_within_6_and_the_refusal_says_3() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    gateway.sim.script("acct-a", "status=429 code=rate_limit_exceeded retry_after=3", 1).expect("script");
    let limited = Instant::now();
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 503);
    let retry: u64 = response.headers()["retry-after"].to_str().expect("ascii").parse().expect("seconds");
    assert!((1..=3).contains(&retry), "the refusal's Retry-After is the account's: {retry}");
    let body: Value = response.json().await.expect("OpenAI error shape");
    assert_eq!(body["error"]["code"], "no_available_account");
    test_support::wait_until("acct-a to serve again", Duration::from_secs(10), || async {
        let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
        (response.status() == 200).then_some(())
    })
    .await
    .expect("served again");
    let back = limited.elapsed();
    println!("served again {back:?} after a Retry-After: 3");
    assert!(back < Duration::from_secs(6), "used again within 6 s of the 429, not after {back:?}");
    let quota: String = sqlx::query_scalar("SELECT quota_state FROM provider_accounts")
        .fetch_one(&gateway.pool().await)
        .await
        .expect("quota");
    assert_ne!(quota, "exhausted", "a short rate limit is no usage limit");
}

#[tokio::test]
async fn the_pool_refusal_after_a_challenge_names_the_earliest_return() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    gateway.sim.script("acct-a", "challenge=403", 1).expect("script");
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 503);
    let retry: u64 = response.headers()["retry-after"].to_str().expect("ascii").parse().expect("seconds");
    assert!((1..=15).contains(&retry), "back after the challenge's cooldown: {retry}");
    let text = response.text().await.expect("body");
    assert!(!text.contains("Just a moment") && !text.contains("cf-"), "no edge page reaches the client: {text}");
}

/// Nothing stored changes for any of these faults, on either account.
async fn assert_nothing_written_off(gateway: &Gateway, before: &[(String, Option<String>, i64, String, i64)]) {
    for (account, state) in ["acct-a", "acct-b"].iter().zip(before) {
        assert_eq!(&stored_state(gateway, account).await, state, "{account}");
    }
}

async fn both(gateway: &Gateway) -> Vec<(String, Option<String>, i64, String, i64)> {
    vec![stored_state(gateway, "acct-a").await, stored_state(gateway, "acct-b").await]
}

#[tokio::test]
async fn no_local_or_ambiguous_fault_changes_an_account_s_stored_state() {
    let env = [
        ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL", "{sim_tls_backend}"),
        ("SWITCHBOARD_PROVIDERS_OPENAI_EXTRA_CA_FILE", "{sim_ca_file}"),
        ("SWITCHBOARD_ENGINE_HEADER_TIMEOUT_SECONDS", "2"),
        ("SWITCHBOARD_ADMIN_ALLOW_PRIVATE_URLS", "true"),
    ];
    let mut gateway = admin_gateway(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], &env).await;
    let (status, text) = turn(&gateway).await;
    assert_eq!(status, 200, "served over TLS first: {text}");
    let before = both(&gateway).await;

    // TLS: the upstream's certificate does not verify (on new connections: the restarted
    // gateway has none open).
    gateway.sim.update_settings(SettingsPatch { tls_fault: Some(TlsFault::Untrusted), ..Default::default() });
    gateway.stop();
    gateway.start_again().await;
    let (status, text) = turn(&gateway).await;
    assert_eq!(status, 503, "{text}");
    assert!(gateway.log().contains("upstream_tls_failed"), "recorded as a TLS failure");
    gateway.sim.update_settings(SettingsPatch { tls_fault: Some(TlsFault::None), ..Default::default() });
    assert_nothing_written_off(&gateway, &before).await;

    // A timeout, an edge page and a challenge, on every account.
    for directive in ["header_delay_ms=4000", "status=502 page=html", "challenge=403", "reset_before_head=1"] {
        for account in ["acct-a", "acct-b"] {
            gateway.sim.script(account, directive, 1).expect("script");
        }
        let (status, _) = turn(&gateway).await;
        assert_ne!(status, 200, "{directive}");
        assert_nothing_written_off(&gateway, &before).await;
        for account in ["acct-a", "acct-b"] {
            gateway.sim.clear_script(account);
        }
    }

    // A dead proxy on acct-a.
    let admin = Admin::login(&gateway).await;
    let a = account_id(&admin, "acct-a").await;
    let dead = test_support::free_port();
    let set =
        admin.put(&format!("/accounts/{a}/egress-proxy"), json!({"url": format!("socks5://127.0.0.1:{dead}")})).await;
    assert_eq!(set.status, 200, "{}", set.text);
    wait_for_reload(&gateway).await;
    turn(&gateway).await;
    assert_nothing_written_off(&gateway, &before).await;
}

#[tokio::test]
async fn an_upstream_name_that_does_not_resolve_is_its_own_fault_and_blames_no_account() {
    let env = [("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL", "https://upstream.invalid/backend-api")];
    let gateway = Gateway::start_with(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], &env).await;
    let before = both(&gateway).await;
    let (status, text) = turn(&gateway).await;
    assert_eq!(status, 503, "{text}");
    let pool = gateway.pool().await;
    let row = crate::gateway::terminal_rows(&pool, 1).await.remove(0);
    let attempts: Value = row.get("attempts");
    let outcomes: Vec<&str> =
        attempts.as_array().expect("attempts").iter().filter_map(|a| a["outcome"].as_str()).collect();
    assert!(!outcomes.is_empty() && outcomes.iter().all(|o| *o == "upstream_dns_failed"), "{outcomes:?}");
    assert_nothing_written_off(&gateway, &before).await;
}
