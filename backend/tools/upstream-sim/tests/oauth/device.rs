use serde_json::{Value, json};
use upstream_sim::AccountSpec;

use crate::support::{client, sim};

#[tokio::test]
async fn device_code_login_after_control_api_approval() {
    let sim = sim().await;
    sim.add_account(AccountSpec::openai("dev").with_plan("pro")).expect("account");
    let issuer = sim.oauth_issuer_url();
    let start: Value = client()
        .post(format!("{issuer}/api/accounts/deviceauth/usercode"))
        .json(&json!({"client_id": "app_EMoamEEZ73f0CkXaXp7hrann"}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(start["interval"], "5");
    let poll = json!({"device_auth_id": start["device_auth_id"], "user_code": start["user_code"]});
    let pending =
        client().post(format!("{issuer}/api/accounts/deviceauth/token")).json(&poll).send().await.expect("request");
    assert_eq!(pending.status(), 403);

    let approve = client()
        .post(format!("{}/_sim/device/approve", sim.base_url()))
        .json(&json!({"user_code": start["user_code"], "account_id": "dev"}))
        .send()
        .await
        .expect("request");
    assert_eq!(approve.status(), 200);
    let done: Value = client()
        .post(format!("{issuer}/api/accounts/deviceauth/token"))
        .json(&poll)
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    let verifier = done["code_verifier"].as_str().expect("verifier");
    assert_eq!(done["code_challenge"], crate::oauth::openai::challenge(verifier));
    let form = [
        ("grant_type", "authorization_code"),
        ("code", done["authorization_code"].as_str().expect("code")),
        ("redirect_uri", &format!("{issuer}/deviceauth/callback")),
        ("client_id", "app_EMoamEEZ73f0CkXaXp7hrann"),
        ("code_verifier", verifier),
    ];
    let tokens = client().post(format!("{issuer}/oauth/token")).form(&form).send().await.expect("request");
    assert_eq!(tokens.status(), 200);
    let again =
        client().post(format!("{issuer}/api/accounts/deviceauth/token")).json(&poll).send().await.expect("request");
    assert_eq!(again.status(), 400, "a device code is redeemed once");
    sim.shutdown().await;
}
