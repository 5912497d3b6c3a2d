use serde_json::Value;
use upstream_sim::AccountSpec;
use upstream_sim::tokens::jwt_claims;

use crate::oauth::openai::challenge;
use crate::support::{client, sim};

const CLIENT_ID: &str = "b1a00492-073a-47ea-816f-4c329264a828";
const DEVICE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

#[tokio::test]
async fn discovery_authorize_token_refresh_userinfo() {
    let sim = sim().await;
    sim.add_account(AccountSpec::xai("team-1").with_plan("supergrok")).expect("account");
    let issuer = sim.xai_issuer_url();
    let discovery: Value = client()
        .get(format!("{issuer}/.well-known/openid-configuration"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(discovery["issuer"], issuer.as_str());
    for key in
        ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri", "device_authorization_endpoint"]
    {
        assert!(discovery[key].as_str().is_some_and(|u| u.starts_with(&issuer)), "{key}");
    }

    let verifier = "x".repeat(43);
    let redirect = "http://127.0.0.1:56121/callback";
    let challenge = challenge(&verifier);
    let query = [
        ("response_type", "code"),
        ("client_id", CLIENT_ID),
        ("redirect_uri", redirect),
        ("scope", "openid profile email offline_access grok-cli:access api:access"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", "s1"),
        ("nonce", "n1"),
    ];
    let response = client().get(format!("{issuer}/oauth2/authorize")).query(&query).send().await.expect("request");
    assert_eq!(response.status(), 302);
    let location = response.headers()["location"].to_str().expect("location").to_owned();
    let code = location.split("code=").nth(1).expect("code").split('&').next().expect("code").to_owned();
    let form = [
        ("grant_type", "authorization_code"),
        ("code", &code),
        ("redirect_uri", redirect),
        ("client_id", CLIENT_ID),
        ("code_verifier", &verifier),
    ];
    let tokens: Value = client()
        .post(format!("{issuer}/oauth2/token"))
        .form(&form)
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(tokens["expires_in"], 21_600);
    let claims = jwt_claims(tokens["id_token"].as_str().expect("id token")).expect("claims");
    assert_eq!(claims["nonce"], "n1");
    assert_eq!(claims["aud"], CLIENT_ID);
    assert_eq!(claims["iss"], issuer.as_str());
    assert_eq!(claims["email"], "team-1@sim.test");

    let info: Value = client()
        .get(format!("{issuer}/oauth2/userinfo"))
        .bearer_auth(tokens["access_token"].as_str().expect("at"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(info["email"], "team-1@sim.test");
    assert!(info["sub"].is_string());

    let rt = tokens["refresh_token"].as_str().expect("rt");
    let refresh = [("grant_type", "refresh_token"), ("refresh_token", rt), ("client_id", CLIENT_ID)];
    let response = client().post(format!("{issuer}/oauth2/token")).form(&refresh).send().await.expect("request");
    assert_eq!(response.status(), 200);
    let reused = client().post(format!("{issuer}/oauth2/token")).form(&refresh).send().await.expect("request");
    assert_eq!(reused.status(), 400);
    assert_eq!(reused.json::<Value>().await.expect("json")["error"], "invalid_grant");
    sim.shutdown().await;
}

#[tokio::test]
async fn device_flow_pending_slow_down_then_tokens() {
    let sim = sim().await;
    sim.add_account(AccountSpec::xai("team-2")).expect("account");
    let issuer = sim.xai_issuer_url();
    let start: Value = client()
        .post(format!("{issuer}/oauth2/device/code"))
        .form(&[("client_id", CLIENT_ID), ("scope", "openid offline_access")])
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(start["interval"], 5);
    let device_code = start["device_code"].as_str().expect("device code").to_owned();
    let poll = || async {
        let form = [("grant_type", DEVICE_GRANT), ("device_code", device_code.as_str()), ("client_id", CLIENT_ID)];
        let response = client().post(format!("{issuer}/oauth2/token")).form(&form).send().await.expect("request");
        (response.status().as_u16(), response.json::<Value>().await.expect("json"))
    };
    assert_eq!(poll().await.1["error"], "authorization_pending");
    let user_code = start["user_code"].as_str().expect("user code");
    sim.decide_device(Some(user_code), None, upstream_sim::DeviceDecision::SlowDown).expect("flow");
    assert_eq!(poll().await.1["error"], "slow_down");
    assert_eq!(poll().await.1["error"], "authorization_pending");
    sim.approve_device(Some(user_code), "team-2").expect("flow");
    let (status, tokens) = poll().await;
    assert_eq!(status, 200);
    assert_eq!(tokens["expires_in"], 21_600);
    assert_eq!(poll().await.1["error"], "invalid_grant");
    sim.shutdown().await;
}
