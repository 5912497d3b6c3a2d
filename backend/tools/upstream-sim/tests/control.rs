use serde_json::{Value, json};

use crate::support::{client, codex_body, sim};

#[tokio::test]
async fn control_api_drives_accounts_scripts_and_recordings() {
    let sim = sim().await;
    let control = format!("{}/_sim", sim.base_url());
    let created = client()
        .post(format!("{control}/accounts"))
        .json(&json!({"id": "c1", "plan": "plus"}))
        .send()
        .await
        .expect("request");
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.expect("json");
    let token = created["tokens"]["access_token"].as_str().expect("token").to_owned();
    assert_eq!(created["tokens"]["codex_auth_json"]["tokens"]["account_id"], "c1");
    let duplicate =
        client().post(format!("{control}/accounts")).json(&json!({"id": "c1"})).send().await.expect("request");
    assert_eq!(duplicate.status(), 409);

    let post = || {
        client().post(format!("{}/responses", sim.codex_base_url())).bearer_auth(&token).json(&codex_body("hi")).send()
    };
    let script = client()
        .post(format!("{control}/accounts/c1/script"))
        .json(&json!({"directive": "status=502", "count": 1}))
        .send()
        .await
        .expect("request");
    assert_eq!(script.status(), 200);
    assert_eq!(post().await.expect("request").status(), 502);
    assert_eq!(post().await.expect("request").status(), 200);

    let patched: Value = client()
        .patch(format!("{control}/accounts/c1"))
        .json(&json!({"primary_used_percent": 100.0}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(patched["primary"]["used_percent"], 100.0);
    assert_eq!(post().await.expect("request").status(), 429);
    client()
        .patch(format!("{control}/accounts/c1"))
        .json(&json!({"primary_used_percent": 0.0}))
        .send()
        .await
        .expect("request");

    let minted: Value = client()
        .post(format!("{control}/accounts/c1/tokens"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_ne!(minted["access_token"], token.as_str());
    let expired: Value = client()
        .post(format!("{control}/accounts/c1/expire-tokens"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(expired["expired"], 2);
    assert_eq!(post().await.expect("request").status(), 401);

    let requests: Vec<Value> =
        client().get(format!("{control}/requests")).send().await.expect("request").json().await.expect("json");
    assert_eq!(requests.iter().filter(|r| r["path"] == "/backend-api/codex/responses").count(), 4);
    assert!(
        requests.iter().all(|r| !r["path"].as_str().unwrap_or("").starts_with("/_sim")),
        "control calls are not recorded"
    );
    client().delete(format!("{control}/requests")).send().await.expect("request");
    assert!(sim.requests().is_empty());

    let settings: Value = client()
        .patch(format!("{control}/settings"))
        .json(&json!({"models_etag": "\"v2\""}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(settings["models_etag"], "\"v2\"");
    let missing = client().patch(format!("{control}/accounts/nobody")).json(&json!({})).send().await.expect("request");
    assert_eq!(missing.status(), 404);
    assert_eq!(client().delete(format!("{control}/accounts/c1")).send().await.expect("request").status(), 200);
    assert!(sim.accounts().is_empty());
    sim.shutdown().await;
}

#[tokio::test]
async fn recording_is_bounded() {
    let sim = sim().await;
    sim.update_settings(upstream_sim::SettingsPatch { record_limit: Some(3), ..Default::default() });
    for _ in 0..5 {
        client().get(format!("{}/nowhere", sim.base_url())).send().await.expect("request");
    }
    let recorded = sim.requests();
    assert_eq!(recorded.len(), 3);
    assert!(recorded.windows(2).all(|w| w[0].seq < w[1].seq));
    sim.shutdown().await;
}

#[tokio::test]
async fn control_api_sets_and_clears_the_persistent_challenge() {
    let sim = sim().await;
    let control = format!("{}/_sim", sim.base_url());
    let created: Value = client()
        .post(format!("{control}/accounts"))
        .json(&json!({"id": "c1", "challenged": true}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(created["account"]["challenged"], true);
    let token = created["tokens"]["access_token"].as_str().expect("token").to_owned();
    let post = || {
        client().post(format!("{}/responses", sim.codex_base_url())).bearer_auth(&token).json(&codex_body("hi")).send()
    };
    let challenged = post().await.expect("request");
    assert_eq!(challenged.status(), 403);
    assert_eq!(challenged.headers()["cf-mitigated"], "challenge");
    let patched: Value = client()
        .patch(format!("{control}/accounts/c1"))
        .json(&json!({"challenged": false}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(patched["challenged"], false);
    assert_eq!(post().await.expect("request").status(), 200);
    let requests: Vec<Value> =
        client().get(format!("{control}/requests")).send().await.expect("request").json().await.expect("json");
    assert!(requests[0]["set_cookies"][0].as_str().expect("cookie").starts_with("__cf_bm="));
    assert_eq!(requests[1]["set_cookies"], json!([]));
    sim.shutdown().await;
}
