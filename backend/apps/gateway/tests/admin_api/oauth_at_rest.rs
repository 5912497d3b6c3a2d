//! A pending login's secrets are sealed at rest: the raw Redis value of a browser flow holds no
//! PKCE verifier (no substring of it hashes to the authorize address's `code_challenge`) and
//! none of the payload's fields; a device flow's value holds neither the device id nor the user
//! code. Completion still works (the flow opens with what only the admin holds).

use base64::Engine;
use serde_json::json;
use sha2::{Digest, Sha256};
use upstream_sim::AccountSpec;

use super::{Admin, gateway, redis_cli};
use crate::gateway::Gateway;

/// The raw `provider_payload` of every pending flow of this gateway.
fn raw_payloads(g: &Gateway) -> Vec<String> {
    let prefix = g.env_value("SWITCHBOARD_REDIS_KEY_PREFIX").expect("prefix");
    let keys = redis_cli(&["--scan", "--pattern", &format!("{prefix}:oauth:*")]);
    keys.lines().filter(|k| !k.is_empty()).map(|key| redis_cli(&["HGET", key, "provider_payload"])).collect()
}

fn query_value(url: &str, name: &str) -> String {
    let query = url.split_once('?').expect("query").1;
    query.split('&').find_map(|pair| pair.strip_prefix(&format!("{name}="))).expect("parameter").to_owned()
}

/// Whether any run of verifier characters in `raw` is the verifier of `challenge` (S256).
fn holds_verifier(raw: &str, challenge: &str) -> bool {
    raw.split(|c: char| !(c.is_ascii_alphanumeric() || "-._~".contains(c))).any(|candidate| {
        let digest = Sha256::digest(candidate.as_bytes());
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest) == challenge
    })
}

#[tokio::test]
async fn pending_logins_keep_no_pkce_verifier_or_device_code_in_redis() {
    let g = gateway(vec![], &[]).await;
    g.sim.add_account(AccountSpec::openai("acct-sealed")).expect("sim account");
    let admin = Admin::login(&g).await;

    let started = admin.post("/oauth/openai/start", json!({})).await.json();
    let authorize_url = started["authorizeUrl"].as_str().expect("authorize url").to_owned();
    let challenge = query_value(&authorize_url, "code_challenge");
    let payloads = raw_payloads(&g);
    assert_eq!(payloads.len(), 1, "one pending flow");
    let raw = &payloads[0];
    assert!(!raw.is_empty());
    assert!(!holds_verifier(raw, &challenge), "the PKCE verifier is stored in clear: {raw}");
    for field in ["verifier", "redirect_uri", "installation_id", "provider_payload", "browser"] {
        assert!(!raw.contains(field), "the payload is readable ({field}): {raw}");
    }

    let device = admin.post("/oauth/openai/device/start", json!({})).await;
    assert_eq!(device.status, 200, "{}", device.text);
    let user_code = device.json()["userCode"].as_str().expect("user code").to_owned();
    let payloads = raw_payloads(&g);
    assert_eq!(payloads.len(), 2);
    for raw in &payloads {
        for secret in [user_code.as_str(), "device_auth_id", "deviceauth"] {
            assert!(!raw.contains(secret), "the device flow is readable ({secret}): {raw}");
        }
    }

    // Sealed, the flows still complete.
    let client = reqwest::Client::builder().no_proxy().redirect(reqwest::redirect::Policy::none()).build().expect("c");
    let consent = client.get(&authorize_url).send().await.expect("authorize");
    let back = consent.headers()["location"].to_str().expect("location").to_owned();
    let done = admin.post("/oauth/openai/complete", json!({"callbackUrl": back})).await;
    assert_eq!(done.status, 200, "{}", done.text);
    assert_eq!(done.json()["externalAccountId"], "acct-sealed");
}
