//! Alert webhooks and rules through the admin API on the real binary: CRUD audited with the
//! secret write-only, URLs through the SSRF guard, configured webhooks listed read-only with
//! their names reserved, a signed test delivery, and a stored webhook receiving a real alert
//! (the simulator bans an account).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use gateway_admin::alerting::signature::verify;
use serde_json::{Value, json};
use test_support::wait_until;
use upstream_sim::AccountSpec;

use super::{Admin, gateway, last_audit};

const CONFIGURED_SECRET: &str = "whsec-configured-0123456789";
const STORED_SECRET: &str = "whsec-stored-0123456789";

type Seen = Arc<Mutex<Vec<(String, HeaderMap, Vec<u8>)>>>;

/// A loopback receiver answering 204 to every POST, keeping the path, headers and body.
async fn receiver() -> (String, Seen, tokio::task::JoinHandle<()>) {
    let seen: Seen = Arc::default();
    let router = axum::Router::new().route(
        "/{hook}",
        axum::routing::post({
            let seen = seen.clone();
            move |axum::extract::Path(hook): axum::extract::Path<String>,
                  headers: HeaderMap,
                  body: axum::body::Bytes| {
                let seen = seen.clone();
                async move {
                    seen.lock().expect("lock").push((hook, headers, body.to_vec()));
                    StatusCode::NO_CONTENT
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (base, seen, task)
}

#[tokio::test]
async fn webhooks_and_rules_are_managed_audited_tested_and_receive_alerts() {
    let (base, seen, task) = receiver().await;
    let configured = json!([{"name": "cfg-ops", "url": format!("{base}/configured"), "secret": CONFIGURED_SECRET,
        "kinds": ["pool_empty"]}]);
    let g = gateway(
        vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")],
        &[("SWITCHBOARD_ALERTS_WEBHOOKS", &configured.to_string()), ("SWITCHBOARD_ADMIN_ALLOW_PRIVATE_URLS", "true")],
    )
    .await;
    let admin = Admin::login(&g).await;
    let pool = g.pool().await;

    // The configured webhook is listed read-only, without its secret.
    let list = admin.ok("/alerts/webhooks").await;
    assert_eq!(list["items"][0]["source"], "config", "{list}");
    assert_eq!(list["items"][0]["id"], Value::Null);
    assert!(!list.to_string().contains(CONFIGURED_SECRET));

    // Refused: a reserved name, a URL the SSRF guard refuses, a missing or short secret, an unknown kind.
    let refused = [
        json!({"name": "CFG-ops", "url": format!("{base}/x"), "secret": STORED_SECRET}),
        json!({"name": "meta", "url": "http://169.254.169.254/hook", "secret": STORED_SECRET}),
        json!({"name": "nosecret", "url": format!("{base}/x")}),
        json!({"name": "short", "url": format!("{base}/x"), "secret": "short"}),
        json!({"name": "kinds", "url": format!("{base}/x"), "secret": STORED_SECRET, "kinds": ["nope"]}),
    ];
    let fields = ["name", "url", "secret", "secret", "kinds"];
    for (body, field) in refused.into_iter().zip(fields) {
        let answer = admin.post("/alerts/webhooks", body).await;
        assert_eq!(answer.status, 422, "{}", answer.text);
        assert_eq!(answer.json()["error"]["fields"][0]["field"], field, "{}", answer.text);
    }

    // Created: the secret is never returned nor audited.
    let created = admin
        .post(
            "/alerts/webhooks",
            json!({"name": "pager", "url": format!("{base}/stored?token=abc"), "secret": STORED_SECRET,
                "kinds": ["account_banned"]}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let webhook = created.json();
    let id = webhook["id"].as_i64().expect("id");
    assert_eq!(
        (webhook["source"].clone(), webhook["url"].clone()),
        (json!("database"), json!(format!("{base}/stored")))
    );
    assert!(!created.text.contains(STORED_SECRET));
    let (action, target, details) = last_audit(&pool).await;
    assert_eq!((action.as_str(), target), ("alert_webhook.create", Some(id.to_string())));
    assert_eq!(details["secret_change"], "replaced", "{details}");
    assert!(!details.to_string().contains(STORED_SECRET) && !details.to_string().contains("token=abc"));
    let duplicate = admin
        .post(
            "/alerts/webhooks",
            json!({"name": "Pager", "url": format!("{base}/x"),
        "secret": STORED_SECRET}),
        )
        .await;
    assert_eq!(duplicate.status, 422, "{}", duplicate.text);

    // A test delivery: one signed POST, answered and recorded.
    let test = admin.post(&format!("/alerts/webhooks/{id}/test"), json!({})).await;
    assert_eq!(test.status, 200, "{}", test.text);
    assert_eq!((test.json()["outcome"].clone(), test.json()["status"].clone()), (json!("delivered"), json!(204)));
    let posts = seen.lock().expect("lock").clone();
    let (hook, headers, body) = posts.last().expect("a POST");
    assert_eq!(hook, "stored");
    let signature = headers.get("x-switchboard-signature").and_then(|v| v.to_str().ok()).expect("signed");
    assert!(verify(STORED_SECRET, signature, body), "signed with the stored secret");
    assert_eq!(serde_json::from_slice::<Value>(body).expect("json")["type"], "test");
    assert_eq!(admin.post("/alerts/webhooks/999999/test", json!({})).await.status, 404);

    // Rules: listed with their defaults, replaced whole, audited; an unknown kind is 404.
    let rules = admin.ok("/alerts/rules").await;
    assert_eq!(rules["items"].as_array().map(Vec::len), Some(6), "{rules}");
    let put = admin
        .put(
            "/alerts/rules/error_rate",
            json!({"enabled": true, "thresholdPercent": 10.0, "windowSeconds": 600,
            "minRequests": 3}),
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.text);
    let rules = admin.ok("/alerts/rules").await;
    let error_rate = rules["items"].as_array().expect("items").iter().find(|r| r["kind"] == "error_rate").cloned();
    assert_eq!(error_rate.expect("rule")["thresholdPercent"], 10.0);
    assert_eq!(last_audit(&pool).await.0, "alert_rule.update");
    let bad = admin
        .put(
            "/alerts/rules/error_rate",
            json!({"enabled": true, "thresholdPercent": 101.0,
        "windowSeconds": 600, "minRequests": 3}),
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.text);
    let unknown = admin
        .put(
            "/alerts/rules/nope",
            json!({"enabled": true, "thresholdPercent": 1.0,
        "windowSeconds": 600, "minRequests": 3}),
        )
        .await;
    assert_eq!(unknown.status, 404, "{}", unknown.text);

    // A real alert reaches the stored webhook (the configured one only wants pool_empty).
    g.sim.ban_account("acct-a").expect("ban");
    crate::data_plane::make_sticky(&g).await;
    let response = g.responses(json!({"model": "gpt-5.4", "input": "hi"})).await;
    assert_eq!(response.status(), 200);
    let banned = wait_until("the banned alert", Duration::from_secs(15), || async {
        let posts = seen.lock().expect("lock").clone();
        posts.into_iter().find(|(hook, headers, _)| {
            hook == "stored"
                && headers.get("x-switchboard-event").and_then(|v| v.to_str().ok()) == Some("account_banned")
        })
    })
    .await
    .expect("delivered");
    let signature = banned.1.get("x-switchboard-signature").and_then(|v| v.to_str().ok()).expect("signed");
    assert!(verify(STORED_SECRET, signature, &banned.2));
    assert!(seen.lock().expect("lock").iter().all(|(hook, _, _)| hook != "configured"), "not subscribed");

    // Edited without a secret: kept. Deleted: gone, audited.
    let edited = admin
        .put(
            &format!("/alerts/webhooks/{id}"),
            json!({"name": "pager-2", "url": format!("{base}/stored"),
            "enabled": false}),
        )
        .await;
    assert_eq!(edited.status, 200, "{}", edited.text);
    assert_eq!(edited.json()["enabled"], false);
    let retest = admin.post(&format!("/alerts/webhooks/{id}/test"), json!({})).await;
    let posts = seen.lock().expect("lock").clone();
    let (_, headers, body) = posts.last().expect("a POST");
    let signature = headers.get("x-switchboard-signature").and_then(|v| v.to_str().ok()).expect("signed");
    assert!(verify(STORED_SECRET, signature, body), "the secret was kept: {}", retest.text);
    assert_eq!(admin.delete(&format!("/alerts/webhooks/{id}")).await.status, 204);
    assert_eq!(admin.get(&format!("/alerts/webhooks/{id}")).await.status, 404);
    assert_eq!(last_audit(&pool).await.0, "alert_webhook.delete");
    assert!(!g.log().contains(STORED_SECRET) && !g.log().contains(CONFIGURED_SECRET), "no secret in the log");
    task.abort();
}
