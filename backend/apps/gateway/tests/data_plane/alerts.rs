//! Alert webhooks end to end: the simulator bans an account, the gateway's refresh finds it
//! deactivated, and a webhook receiver gets a correctly signed `account_banned` alert — first
//! answered 500, then retried after the backoff — with each delivery recorded in `ops_events`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use gateway_admin::alerting::signature::verify;
use serde_json::{Value, json};
use sqlx::Row;
use test_support::wait_until;
use upstream_sim::AccountSpec;

use super::make_sticky;
use crate::gateway::Gateway;

const SECRET: &str = "whsec-e2e-0123456789";

/// What the receiver was sent: headers and body of each POST.
type Seen = Arc<Mutex<Vec<(HeaderMap, Vec<u8>)>>>;

/// A webhook receiver on a loopback port: answers 500 to the first POST, 200 afterwards.
struct Receiver {
    url: String,
    seen: Seen,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    async fn start() -> Self {
        let seen: Seen = Arc::default();
        let router = axum::Router::new().route(
            "/hook",
            axum::routing::post({
                let seen = seen.clone();
                move |headers: HeaderMap, body: axum::body::Bytes| {
                    let seen = seen.clone();
                    async move {
                        let mut seen = seen.lock().expect("lock");
                        seen.push((headers, body.to_vec()));
                        if seen.len() == 1 { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::NO_CONTENT }
                    }
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { url, seen, task }
    }

    fn seen(&self) -> Vec<(HeaderMap, Vec<u8>)> {
        self.seen.lock().expect("lock").clone()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[tokio::test]
async fn a_banned_account_reaches_the_webhook_signed_and_retried_after_a_500() {
    let receiver = Receiver::start().await;
    let webhooks = json!([{"name": "ops", "url": receiver.url, "secret": SECRET, "kinds": ["account_banned"]}]);
    let gateway = Gateway::start_with(
        vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")],
        &[
            ("SWITCHBOARD_ALERTS_WEBHOOKS", &webhooks.to_string()),
            ("SWITCHBOARD_ALERTS_BACKOFF_INITIAL_MS", "300"),
            // The receiver is on loopback over plain http.
            ("SWITCHBOARD_ADMIN_ALLOW_PRIVATE_URLS", "true"),
        ],
    )
    .await;
    make_sticky(&gateway).await;
    gateway.sim.ban_account("acct-a").expect("ban");

    // acct-a answers deactivated, its refresh is refused for good, acct-b serves the request.
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body");

    let seen = wait_until("the retried delivery", Duration::from_secs(15), || async {
        let seen = receiver.seen();
        (seen.len() >= 2).then_some(seen)
    })
    .await
    .expect("two POSTs");
    let account_a: i64 = sqlx::query_scalar("SELECT id FROM provider_accounts ORDER BY id LIMIT 1")
        .fetch_one(&gateway.pool().await)
        .await
        .expect("account id");
    for (headers, body) in &seen[..2] {
        let signature = headers.get("x-switchboard-signature").and_then(|v| v.to_str().ok()).expect("signed");
        assert!(verify(SECRET, signature, body), "a valid signature: {signature}");
        assert!(!verify("whsec-not-the-secret-0", signature, body));
        let alert: Value = serde_json::from_slice(body).expect("json body");
        assert_eq!(alert["kind"], "account_banned", "{alert}");
        assert_eq!(alert["accountId"], account_a, "{alert}");
        assert_eq!(headers.get("x-switchboard-event").and_then(|v| v.to_str().ok()), Some("account_banned"));
        let text = String::from_utf8_lossy(body);
        assert!(!text.contains("access") && !text.contains("refresh_token"), "no credential: {text}");
    }
    assert_eq!(seen[0].0.get("x-switchboard-delivery"), seen[1].0.get("x-switchboard-delivery"), "one delivery");

    // Every attempt is recorded.
    let pool = gateway.pool().await;
    let rows = wait_until("both delivery records", Duration::from_secs(10), || async {
        let rows = sqlx::query("SELECT details FROM ops_events WHERE kind = 'alert.delivery' ORDER BY id")
            .fetch_all(&pool)
            .await
            .ok()?;
        (rows.len() >= 2).then_some(rows)
    })
    .await
    .expect("records");
    let outcomes: Vec<(Value, Value)> = rows
        .iter()
        .map(|row| {
            let details: Value = row.get("details");
            (details["status"].clone(), details["outcome"].clone())
        })
        .collect();
    assert_eq!(outcomes, vec![(json!(500), json!("retrying")), (json!(204), json!("delivered"))]);
    assert!(!gateway.log().contains(SECRET), "the secret never reaches the log");
}

#[tokio::test]
async fn a_webhook_url_refused_by_the_ssrf_guard_stops_the_start() {
    let webhooks = json!([{"name": "meta", "url": "http://169.254.169.254/hook", "secret": SECRET}]);
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let mut child = gateway
        .command()
        .env("SWITCHBOARD_ALERTS_WEBHOOKS", webhooks.to_string())
        .env("SWITCHBOARD_ADMIN_ALLOW_PRIVATE_URLS", "true")
        .env("SWITCHBOARD_SERVER_LISTEN", format!("127.0.0.1:{}", test_support::free_port()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let exited = wait_until("the refused start to exit", Duration::from_secs(30), || {
        let status = child.try_wait().ok().flatten();
        async move { status }
    })
    .await;
    if exited.is_err() {
        let _ = child.kill();
    }
    let output = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("alerts.webhooks[0].url"), "{stderr}");
    assert!(!stderr.contains("169.254.169.254") && !stderr.contains(SECRET), "{stderr}");
}
