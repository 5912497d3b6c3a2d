use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use upstream_sim::tokens::jwt_claims;
use upstream_sim::{AccountSpec, RefreshOutcome, SimHandle};

use crate::support::{client, sim};

const CLIENT_ID: &str = "app_EMoamEEZ73f0CkXaXp7hrann";
const REDIRECT: &str = "http://localhost:1455/auth/callback";

pub fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Runs `/oauth/authorize` and returns the `code` from the redirect.
async fn authorize(sim: &SimHandle, verifier: &str, extra: &[(&str, &str)]) -> String {
    let challenge = challenge(verifier);
    let mut query = vec![
        ("response_type", "code"),
        ("client_id", CLIENT_ID),
        ("redirect_uri", REDIRECT),
        ("scope", "openid profile email offline_access"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", "st-123"),
    ];
    query.extend_from_slice(extra);
    let response = client()
        .get(format!("{}/oauth/authorize", sim.oauth_issuer_url()))
        .query(&query)
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 302);
    let location = response.headers()["location"].to_str().expect("location").to_owned();
    assert!(location.starts_with(REDIRECT), "{location}");
    assert!(location.contains("state=st-123"));
    let code = location.split("code=").nth(1).expect("code").split('&').next().expect("code");
    code.to_owned()
}

async fn token(sim: &SimHandle, form: &[(&str, &str)]) -> (u16, Value) {
    let response =
        client().post(format!("{}/oauth/token", sim.oauth_issuer_url())).form(form).send().await.expect("request");
    (response.status().as_u16(), response.json().await.expect("json"))
}

async fn refresh_json(sim: &SimHandle, refresh_token: &str) -> (u16, Value) {
    let body = json!({"client_id": CLIENT_ID, "grant_type": "refresh_token", "refresh_token": refresh_token});
    let response =
        client().post(format!("{}/oauth/token", sim.oauth_issuer_url())).json(&body).send().await.expect("request");
    (response.status().as_u16(), response.json().await.expect("json"))
}

#[tokio::test]
async fn authorization_code_with_pkce_issues_tokens_with_claims() {
    let sim = sim().await;
    sim.add_account(AccountSpec::openai("first")).expect("account");
    sim.add_account(AccountSpec::openai("chosen").with_plan("team")).expect("account");
    let verifier = "v".repeat(64);
    let code = authorize(&sim, &verifier, &[("sim_account", "chosen")]).await;

    let (status, body) = token(
        &sim,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("client_id", CLIENT_ID),
            ("code_verifier", "wrong"),
        ],
    )
    .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_grant")));

    let code = authorize(&sim, &verifier, &[("login_hint", "chosen@sim.test")]).await;
    let (status, body) = token(
        &sim,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("client_id", CLIENT_ID),
            ("code_verifier", &verifier),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    for key in ["id_token", "access_token", "refresh_token", "expires_in"] {
        assert!(body.get(key).is_some(), "missing {key}");
    }
    for jwt in [&body["id_token"], &body["access_token"]] {
        let claims = jwt_claims(jwt.as_str().expect("jwt")).expect("claims");
        assert_eq!(claims["https://api.openai.com/auth"]["chatgpt_account_id"], "chosen");
        assert_eq!(claims["https://api.openai.com/auth"]["chatgpt_plan_type"], "team");
        assert!(claims["https://api.openai.com/auth"]["chatgpt_user_id"].is_string());
        assert_eq!(claims["https://api.openai.com/profile"]["email"], "chosen@sim.test");
        assert_eq!(claims["email"], "chosen@sim.test");
        assert!(claims["exp"].as_u64().is_some());
    }
    let (status, _) = token(
        &sim,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("client_id", CLIENT_ID),
            ("code_verifier", &verifier),
        ],
    )
    .await;
    assert_eq!(status, 400, "codes are single use");
    sim.shutdown().await;
}

#[tokio::test]
async fn authorize_validates_its_parameters() {
    let sim = sim().await;
    sim.add_account(AccountSpec::openai("a")).expect("account");
    let base = format!("{}/oauth/authorize", sim.oauth_issuer_url());
    let response = client()
        .get(&base)
        .query(&[
            ("response_type", "code"),
            ("client_id", CLIENT_ID),
            ("redirect_uri", REDIRECT),
            ("code_challenge", "x"),
            ("code_challenge_method", "plain"),
            ("state", "s"),
        ])
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 400);
    let response = client().get(&base).query(&[("response_type", "token")]).send().await.expect("request");
    assert_eq!(response.status(), 400);
    sim.shutdown().await;
}

#[tokio::test]
async fn refresh_rotates_and_reuse_is_refused() {
    let sim = sim().await;
    let first = sim.add_account(AccountSpec::openai("a")).expect("account");
    let (status, rotated) = refresh_json(&sim, &first.refresh_token).await;
    assert_eq!(status, 200);
    assert_ne!(rotated["refresh_token"], first.refresh_token.as_str());
    let (status, body) = refresh_json(&sim, &first.refresh_token).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["code"], "refresh_token_reused");
    let next = rotated["refresh_token"].as_str().expect("rt");
    let (status, body) =
        token(&sim, &[("grant_type", "refresh_token"), ("refresh_token", next), ("client_id", CLIENT_ID)]).await;
    assert_eq!(status, 200, "form-encoded refresh works: {body}");
    sim.shutdown().await;
}

#[tokio::test]
async fn scripted_refresh_failures_and_revocation() {
    let sim = sim().await;
    let tokens = sim.add_account(AccountSpec::openai("a")).expect("account");
    sim.push_refresh_outcomes(
        "a",
        vec![
            RefreshOutcome::Expired,
            RefreshOutcome::Invalidated,
            RefreshOutcome::InvalidGrant,
            RefreshOutcome::ServerError { status: 502 },
            RefreshOutcome::Delay { delay_ms: 1 },
        ],
    )
    .expect("account");
    let (status, body) = refresh_json(&sim, &tokens.refresh_token).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("refresh_token_expired")));
    let (status, body) = refresh_json(&sim, &tokens.refresh_token).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("refresh_token_invalidated")));
    let (status, body) = refresh_json(&sim, &tokens.refresh_token).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_grant")));
    let (status, _) = refresh_json(&sim, &tokens.refresh_token).await;
    assert_eq!(status, 502);
    let (status, delayed) = refresh_json(&sim, &tokens.refresh_token).await;
    assert_eq!(status, 200, "a delayed refresh still succeeds");

    let rt = delayed["refresh_token"].as_str().expect("rt").to_owned();
    let response = client()
        .post(format!("{}/oauth/revoke", sim.oauth_issuer_url()))
        .json(&json!({"token": rt, "token_type_hint": "refresh_token", "client_id": CLIENT_ID}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    let (status, body) = refresh_json(&sim, &rt).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("refresh_token_invalidated")));

    let other = sim.mint_tokens("a").expect("tokens");
    sim.ban_account("a").expect("account");
    let (status, body) = refresh_json(&sim, &other.refresh_token).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("account_deactivated")));
    sim.shutdown().await;
}

/// Cloudflare's challenge on the token endpoint: queued, from the control API's refresh script,
/// or persistent; the refresh token is not used by a challenged refresh.
#[tokio::test]
async fn a_refresh_can_be_challenged_by_the_edge() {
    let sim = sim().await;
    let tokens = sim.add_account(AccountSpec::openai("a")).expect("account");
    let url = format!("{}/oauth/token", sim.oauth_issuer_url());
    let body = json!({"client_id": CLIENT_ID, "grant_type": "refresh_token", "refresh_token": tokens.refresh_token});
    let refresh = || client().post(&url).json(&body).send();

    sim.push_refresh_outcomes("a", vec![RefreshOutcome::Challenge { status: 403 }]).expect("account");
    crate::support::assert_challenge(refresh().await.expect("answer"), 403, false).await;
    let recorded = sim.requests().pop().expect("recorded");
    assert!(recorded.set_cookies[0].starts_with("__cf_bm="));

    let script = client()
        .post(format!("{}/_sim/accounts/a/refresh-script", sim.base_url()))
        .json(&json!({"outcomes": [{"kind": "challenge"}, {"kind": "challenge", "status": 503}]}))
        .send()
        .await
        .expect("answer");
    assert_eq!(script.status(), 200);
    crate::support::assert_challenge(refresh().await.expect("answer"), 403, false).await;
    crate::support::assert_challenge(refresh().await.expect("answer"), 503, false).await;

    let persistent = client()
        .patch(format!("{}/_sim/accounts/a", sim.base_url()))
        .json(&json!({"refresh_failure": {"kind": "challenge"}}))
        .send()
        .await
        .expect("answer");
    assert_eq!(persistent.status(), 200);
    for _ in 0..2 {
        crate::support::assert_challenge(refresh().await.expect("answer"), 403, false).await;
    }
    sim.update_account("a", upstream_sim::AccountPatch { refresh_failure: Some(None), ..Default::default() })
        .expect("account");
    let (status, _) = refresh_json(&sim, &tokens.refresh_token).await;
    assert_eq!(status, 200, "no challenged refresh used the token");
    sim.shutdown().await;
}
