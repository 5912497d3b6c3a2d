//! xAI logins through the admin API on the real binary: the browser flow with the pasted
//! `127.0.0.1:56121/callback` address and the device-code flow each end in an account that
//! serves Grok requests (its ID token verified against the simulator issuer's JWKS).

use std::time::Duration;

use serde_json::json;
use upstream_sim::AccountSpec;

use super::{Admin, gateway};
use crate::gateway::Gateway;

/// Sends a Grok request until it succeeds; the simulator account that served it.
async fn served_by_grok(g: &Gateway) -> String {
    let before = g.sim.requests().len();
    test_support::wait_until("a Grok request through the gateway to succeed", Duration::from_secs(15), || async {
        let response = g.responses(json!({"model": "grok-4.5", "input": "hi", "stream": true})).await;
        if response.status() != 200 {
            return None;
        }
        response.bytes().await.ok()?;
        Some(())
    })
    .await
    .expect("the gateway serves the Grok request");
    g.sim.requests()[before..]
        .iter()
        .rev()
        .find(|r| r.path.ends_with("/xai/v1/responses"))
        .and_then(|r| r.account_id.clone())
        .expect("an xAI call")
}

#[tokio::test]
async fn the_xai_browser_login_with_a_pasted_callback_ends_in_a_serving_account() {
    let g = gateway(vec![], &[]).await;
    g.sim.add_account(AccountSpec::xai("grok-oauth")).expect("sim account");
    let admin = Admin::login(&g).await;
    let started = admin.post("/oauth/xai/start", json!({})).await;
    assert_eq!(started.status, 200, "{}", started.text);
    let started = started.json();
    assert_eq!(started["redirectUri"], "http://127.0.0.1:56121/callback");
    // The issuer is the simulator's TLS listener: the browser trusts its test CA.
    let ca = reqwest::Certificate::from_pem(g.sim.ca_pem().as_bytes()).expect("CA");
    let client = reqwest::Client::builder()
        .add_root_certificate(ca)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let consent = client.get(started["authorizeUrl"].as_str().expect("url")).send().await.expect("authorize");
    assert_eq!(consent.status(), 302);
    let back = consent.headers()["location"].to_str().expect("location").to_owned();
    let done = admin.post("/oauth/xai/complete", json!({"callbackUrl": back})).await;
    assert_eq!(done.status, 200, "{}", done.text);
    let done = done.json();
    assert_eq!(done["externalAccountId"], "user-grok-oauth");
    assert_eq!(done["credentialState"], "active");
    assert_eq!(served_by_grok(&g).await, "grok-oauth");
}

#[tokio::test]
async fn the_xai_device_login_ends_in_a_serving_account() {
    let g = gateway(vec![], &[]).await;
    g.sim.add_account(AccountSpec::xai("grok-device")).expect("sim account");
    let admin = Admin::login(&g).await;
    let started = admin.post("/oauth/xai/device/start", json!({})).await;
    assert_eq!(started.status, 200, "{}", started.text);
    let started = started.json();
    let flow_id = started["flowId"].as_str().expect("flow id").to_owned();
    let user_code = started["userCode"].as_str().expect("user code").to_owned();
    let pending = admin.post("/oauth/xai/device/poll", json!({"flowId": flow_id})).await;
    assert_eq!(pending.json()["status"], "pending", "{}", pending.text);
    g.sim.approve_device(Some(&user_code), "grok-device").expect("approve");
    let done = admin.post("/oauth/xai/device/poll", json!({"flowId": flow_id})).await;
    assert_eq!(done.status, 200, "{}", done.text);
    let done = done.json();
    assert_eq!(done["status"], "completed");
    assert_eq!(done["account"]["externalAccountId"], "user-grok-device");
    assert_eq!(served_by_grok(&g).await, "grok-device");
}
