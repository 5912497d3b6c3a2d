//! Browser and device logins against the simulator's issuer (PROTOCOL §A.2, §A.3, §A.8).

use gateway_core::domain::CredentialState;
use gateway_core::oauth_login::{DevicePoll, OAuthFailure, OAuthLogin};
use provider_openai::credential::OpenAiCredential;
use provider_openai::oauth::{REDIRECT_URI, SCOPES, pkce_challenge};
use upstream_sim::{AccountSpec, DeviceDecision};

use crate::support::World;

fn query_pairs(url: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(url).expect("url").query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
}

/// Follows an authorize address the way a browser would, up to the callback it redirects to.
pub async fn consent(authorize_url: &str) -> String {
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let response = client.get(authorize_url).send().await.expect("authorize");
    assert_eq!(response.status(), 302, "{}", response.text().await.unwrap_or_default());
    response.headers()["location"].to_str().expect("location").to_owned()
}

#[tokio::test]
async fn the_authorize_address_carries_codex_parameters_in_order() {
    let world = World::start().await;
    let oauth = world.provider().oauth();
    let start = oauth.begin_authorization().expect("start");
    assert!(start.authorize_url.starts_with(&format!("{}/oauth/authorize?", world.sim.oauth_issuer_url())));
    let pairs = query_pairs(&start.authorize_url);
    let names: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "response_type",
            "client_id",
            "redirect_uri",
            "scope",
            "code_challenge",
            "code_challenge_method",
            "id_token_add_organizations",
            "codex_cli_simplified_flow",
            "state",
            "originator"
        ]
    );
    let get = |name: &str| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).expect(name);
    assert_eq!(get("response_type"), "code");
    assert_eq!(get("client_id"), "app_EMoamEEZ73f0CkXaXp7hrann");
    assert_eq!(get("redirect_uri"), REDIRECT_URI);
    assert_eq!(get("scope"), SCOPES);
    assert_eq!(get("code_challenge_method"), "S256");
    assert_eq!(get("originator"), "codex_cli_rs");
    assert_eq!(get("state"), start.state);
    assert_eq!(start.state.len(), 43, "32 random bytes, base64url");
    assert!(start.authorize_url.contains("scope=openid%20profile%20email%20offline_access%20api.connectors.read"));
    let payload: serde_json::Value = serde_json::from_str(start.payload.expose()).expect("payload json");
    let verifier = payload["verifier"].as_str().expect("verifier");
    assert_eq!(verifier.len(), 86, "64 random bytes, base64url");
    assert_eq!(get("code_challenge"), pkce_challenge(verifier));
    assert!(!format!("{:?}", start.payload).contains(verifier), "the payload never prints");
}

#[tokio::test]
async fn a_pasted_code_is_exchanged_for_an_identified_credential() {
    let world = World::start().await;
    world.sim.add_account(AccountSpec::openai("acct-1").with_plan("pro")).expect("account");
    let oauth = world.provider().oauth();
    let start = oauth.begin_authorization().expect("start");
    let callback = consent(&start.authorize_url).await;
    assert!(callback.starts_with(REDIRECT_URI), "{callback}");
    let pairs = query_pairs(&callback);
    let code = pairs.iter().find(|(k, _)| k == "code").map(|(_, v)| v.clone()).expect("code");
    assert!(pairs.iter().any(|(k, v)| k == "state" && *v == start.state));
    let imported = oauth.complete_authorization(&start.payload, &code, None, None).await.expect("exchange");
    assert_eq!(imported.external_account_id, "acct-1");
    assert_eq!(imported.profile.email.as_deref(), Some("acct-1@sim.test"));
    assert_eq!(imported.profile.plan_type.as_deref(), Some("pro"));
    assert_eq!(imported.facts.state, CredentialState::Active);
    let credential = OpenAiCredential::decode(&imported.document).expect("document");
    assert!(credential.refresh_token.is_some() && credential.id_token.is_some());
    let installation = credential.installation_id.clone().expect("an installation id is minted");
    assert_eq!(installation.len(), 36);

    // The code is single-use.
    let replay = oauth.complete_authorization(&start.payload, &code, None, None).await.expect_err("replayed code");
    assert_eq!(replay, OAuthFailure::Rejected("invalid_grant".to_owned()));

    // Re-authorisation keeps the account's installation id.
    let again = oauth.begin_authorization().expect("start");
    let callback = consent(&again.authorize_url).await;
    let code = query_pairs(&callback).into_iter().find(|(k, _)| k == "code").map(|(_, v)| v).expect("code");
    let reauth =
        oauth.complete_authorization(&again.payload, &code, Some(&imported.document), None).await.expect("exchange");
    let renewed = OpenAiCredential::decode(&reauth.document).expect("document");
    assert_eq!(renewed.installation_id.as_deref(), Some(installation.as_str()));
}

#[tokio::test]
async fn a_code_with_another_verifier_is_refused() {
    let world = World::start().await;
    world.sim.add_account(AccountSpec::openai("acct-1")).expect("account");
    let oauth = world.provider().oauth();
    let first = oauth.begin_authorization().expect("start");
    let other = oauth.begin_authorization().expect("start");
    let callback = consent(&first.authorize_url).await;
    let code = query_pairs(&callback).into_iter().find(|(k, _)| k == "code").map(|(_, v)| v).expect("code");
    let refused = oauth.complete_authorization(&other.payload, &code, None, None).await.expect_err("PKCE mismatch");
    assert!(matches!(refused, OAuthFailure::Rejected(_)), "{refused:?}");
}

#[tokio::test]
async fn device_login_is_pending_until_approved() {
    let world = World::start().await;
    world.sim.add_account(AccountSpec::openai("acct-1")).expect("account");
    let oauth = world.provider().oauth();
    let start = oauth.begin_device(None).await.expect("device code");
    assert!(!start.user_code.is_empty());
    assert_eq!(start.verification_url, format!("{}/codex/device", world.sim.oauth_issuer_url()));
    assert_eq!(start.interval.as_secs(), 5, "`interval` is parsed from a string");
    assert!(matches!(oauth.poll_device(&start.payload, None, None).await, Ok(DevicePoll::Pending)));
    world.sim.approve_device(Some(&start.user_code), "acct-1").expect("approve");
    let DevicePoll::Approved(imported) = oauth.poll_device(&start.payload, None, None).await.expect("poll") else {
        panic!("approved device login is not pending");
    };
    assert_eq!(imported.external_account_id, "acct-1");
    assert_eq!(imported.facts.state, CredentialState::Active);
}

#[tokio::test]
async fn a_denied_device_login_is_refused() {
    let world = World::start().await;
    world.sim.add_account(AccountSpec::openai("acct-1")).expect("account");
    let oauth = world.provider().oauth();
    let start = oauth.begin_device(None).await.expect("device code");
    world.sim.decide_device(Some(&start.user_code), Some("acct-1"), DeviceDecision::Deny).expect("deny");
    let refused = oauth.poll_device(&start.payload, None, None).await.expect_err("denied");
    assert!(matches!(refused, OAuthFailure::Denied(_)), "{refused:?}");
}
