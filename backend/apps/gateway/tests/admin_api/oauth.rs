//! OAuth logins through the admin API on the real binary: the paste-back flow ends with an
//! account that serves client requests, only the admin who started a flow can complete it,
//! re-authorisation keeps the account, the device-code flow, and request mistakes in the
//! envelope with their field.

use serde_json::json;
use upstream_sim::AccountSpec;

use super::{Admin, gateway, last_audit};
use crate::accounts::served_by;
use crate::gateway::Gateway;

/// A second administrator (there is no user-management API yet: a row with an argon2 hash).
pub async fn second_admin(g: &Gateway, username: &str, password: &str) -> Admin {
    let hash = gateway_admin::passwords::hash_password(password).await.expect("hash");
    sqlx::query("INSERT INTO admin_users (username, password_hash) VALUES ($1, $2)")
        .bind(username)
        .bind(&hash.0)
        .execute(&g.pool().await)
        .await
        .expect("second admin");
    Admin::login_as(g, username, password).await
}

/// Follows the authorize address like a browser that consents, up to the callback address.
async fn consent(authorize_url: &str) -> String {
    let client = reqwest::Client::builder().no_proxy().redirect(reqwest::redirect::Policy::none()).build().expect("c");
    let response = client.get(authorize_url).send().await.expect("authorize");
    assert_eq!(response.status(), 302, "the simulator consents with a redirect");
    response.headers()["location"].to_str().expect("location").to_owned()
}

#[tokio::test]
async fn a_pasted_callback_adds_a_usable_account_only_for_the_admin_who_started_the_flow() {
    let g = gateway(vec![], &[]).await;
    g.sim.add_account(AccountSpec::openai("acct-oauth")).expect("sim account");
    let alice = Admin::login(&g).await;
    let mallory = second_admin(&g, "mallory", "mallory-password-9d2f").await;

    let started = alice.post("/oauth/openai/start", json!({})).await;
    assert_eq!(started.status, 200, "{}", started.text);
    let started = started.json();
    assert_eq!(started["provider"], "openai");
    let flow_id = started["flowId"].as_str().expect("flow id").to_owned();
    let authorize_url = started["authorizeUrl"].as_str().expect("authorize url");
    assert!(authorize_url.contains(&format!("state={flow_id}")), "{authorize_url}");
    assert!(started["expiresAt"].is_string());
    let back = consent(authorize_url).await;

    let foreign = mallory.post("/oauth/openai/complete", json!({"callbackUrl": back})).await;
    assert_eq!((foreign.status.as_u16(), foreign.code().as_str()), (403, "oauth_flow_not_owned"), "{}", foreign.text);
    assert_eq!(alice.ok("/accounts").await["counts"]["all"], 0, "the foreign attempt stored nothing");

    let done = alice.post("/oauth/openai/complete", json!({"callbackUrl": back})).await;
    assert_eq!(done.status, 200, "{}", done.text);
    let done = done.json();
    assert_eq!((done["created"].as_bool(), done["reauthorized"].as_bool()), (Some(true), Some(false)));
    assert_eq!(done["externalAccountId"], "acct-oauth");
    assert_eq!(done["credentialState"], "active");
    let account = done["accountId"].as_i64().expect("account id");
    let (action, target, _) = last_audit(&g.pool().await).await;
    assert_eq!((action.as_str(), target), ("account.oauth_login", Some(account.to_string())));
    let replay = alice.post("/oauth/openai/complete", json!({"callbackUrl": back})).await;
    assert_eq!((replay.status.as_u16(), replay.code().as_str()), (404, "oauth_flow_not_found"));

    // The new account serves client traffic.
    assert_eq!(served_by(&g).await, "acct-oauth");
    assert_eq!(alice.ok(&format!("/accounts/{account}")).await["account"]["credential"]["state"], "active");

    // Re-authorisation of the same account keeps it (same id, same weight).
    alice.patch(&format!("/accounts/{account}"), json!({"weight": 9})).await;
    let again = alice.post("/oauth/openai/start", json!({"accountId": account})).await;
    assert_eq!(again.status, 200, "{}", again.text);
    let back = consent(again.json()["authorizeUrl"].as_str().expect("url")).await;
    let reauthorized = alice.post("/oauth/openai/complete", json!({"callbackUrl": back})).await;
    assert_eq!(reauthorized.status, 200, "{}", reauthorized.text);
    assert_eq!(reauthorized.json()["reauthorized"], true);
    assert_eq!(reauthorized.json()["accountId"], account);
    assert_eq!(last_audit(&g.pool().await).await.0, "account.reauthorize");
    let detail = alice.ok(&format!("/accounts/{account}")).await;
    assert_eq!(
        (detail["account"]["weight"].as_i64(), alice.ok("/accounts").await["counts"]["all"].as_i64()),
        (Some(9), Some(1))
    );
}

#[tokio::test]
async fn login_mistakes_answer_in_the_envelope_with_their_field() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let garbage = admin.post("/oauth/openai/complete", json!({"callbackUrl": "not a callback"})).await;
    assert_eq!((garbage.status.as_u16(), garbage.code().as_str()), (400, "invalid_callback"), "{}", garbage.text);
    assert_eq!(garbage.json()["error"]["fields"][0]["field"], "callbackUrl");
    let stale = admin
        .post("/oauth/openai/complete", json!({"callbackUrl": "http://localhost:1455/auth/callback?code=c&state=s"}))
        .await;
    assert_eq!((stale.status.as_u16(), stale.code().as_str()), (404, "oauth_flow_not_found"));
    let missing = admin.post("/oauth/openai/complete", json!({})).await;
    assert_eq!(missing.status, 422);
    let unknown_provider = admin.post("/oauth/bogus/start", json!({})).await;
    assert_eq!(unknown_provider.status, 422);
    assert_eq!(unknown_provider.json()["error"]["fields"][0]["field"], "provider");
    // xAI has its own login: PKCE, state and an OIDC nonce, back to the Grok CLI's loopback.
    let xai = admin.post("/oauth/xai/start", json!({})).await;
    assert_eq!(xai.status.as_u16(), 200);
    let authorize = xai.json()["authorizeUrl"].as_str().unwrap_or_default().to_owned();
    assert!(authorize.contains("/xai/oauth2/authorize?") && authorize.contains("nonce="), "{authorize}");
    assert!(authorize.contains("code_challenge_method=S256"), "{authorize}");
    let no_account = admin.post("/oauth/openai/start", json!({"accountId": 999999})).await;
    assert_eq!((no_account.status.as_u16(), no_account.code().as_str()), (404, "not_found"));
    let no_flow = admin.post("/oauth/openai/device/poll", json!({"flowId": "0123"})).await;
    assert_eq!((no_flow.status.as_u16(), no_flow.code().as_str()), (404, "oauth_flow_not_found"));
}

#[tokio::test]
async fn a_device_login_completes_through_the_admin_api_for_its_owner_only() {
    let g = gateway(vec![], &[]).await;
    g.sim.add_account(AccountSpec::openai("acct-device")).expect("sim account");
    let alice = Admin::login(&g).await;
    let mallory = second_admin(&g, "mallory", "mallory-password-9d2f").await;

    let started = alice.post("/oauth/openai/device/start", json!({})).await;
    assert_eq!(started.status, 200, "{}", started.text);
    let started = started.json();
    let flow_id = started["flowId"].as_str().expect("flow id").to_owned();
    let user_code = started["userCode"].as_str().expect("user code").to_owned();
    assert!(started["verificationUrl"].as_str().is_some_and(|u| u.starts_with("http")));
    assert!(started["intervalSeconds"].as_u64().is_some_and(|s| s >= 1));

    let pending = alice.post("/oauth/openai/device/poll", json!({"flowId": flow_id})).await;
    assert_eq!(pending.status, 200, "{}", pending.text);
    assert_eq!(pending.json()["status"], "pending");
    assert!(pending.json()["account"].is_null());
    let foreign = mallory.post("/oauth/openai/device/poll", json!({"flowId": flow_id})).await;
    assert_eq!((foreign.status.as_u16(), foreign.code().as_str()), (403, "oauth_flow_not_owned"));

    g.sim.approve_device(Some(&user_code), "acct-device").expect("approve");
    // Mallory still cannot take the approved login.
    let foreign = mallory.post("/oauth/openai/device/poll", json!({"flowId": flow_id})).await;
    assert_eq!(foreign.status, 403);
    let done = alice.post("/oauth/openai/device/poll", json!({"flowId": flow_id})).await;
    assert_eq!(done.status, 200, "{}", done.text);
    let done = done.json();
    assert_eq!(done["status"], "completed");
    assert_eq!(done["account"]["externalAccountId"], "acct-device");
    assert_eq!(done["account"]["created"], true);
    assert_eq!(last_audit(&g.pool().await).await.0, "account.oauth_login");
    let again = alice.post("/oauth/openai/device/poll", json!({"flowId": flow_id})).await;
    assert_eq!(again.status, 404);
    assert_eq!(served_by(&g).await, "acct-device");
}
