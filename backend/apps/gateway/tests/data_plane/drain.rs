//! The real binary drains on SIGTERM: a slow stream in flight completes, new connections are
//! refused, the process exits 0.

use std::time::Duration;

use serde_json::json;
use upstream_sim::AccountSpec;

use super::events;
use crate::gateway::Gateway;

#[tokio::test]
async fn sigterm_lets_the_slow_stream_finish_and_refuses_new_connections() {
    let mut gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let health = reqwest::get(format!("{}/healthz", gateway.url)).await.expect("healthz");
    assert_eq!(health.status(), 200);
    let ready: serde_json::Value =
        reqwest::get(format!("{}/readyz", gateway.url)).await.expect("readyz").json().await.expect("json");
    assert_eq!(ready["status"], "ready");
    assert_eq!(ready["checks"]["postgres"]["status"], "ok");
    assert_eq!(ready["checks"]["redis"]["status"], "ok");
    let mut response =
        gateway.responses(json!({"model": "gpt-5.4", "input": "sim: events=20 delay_ms=60", "stream": true})).await;
    assert_eq!(response.status(), 200);
    let first = response.chunk().await.expect("chunk").expect("first chunk");
    let mut body = String::from_utf8_lossy(&first).into_owned();

    let url = gateway.url.clone();
    let pid = gateway.pid().expect("running");
    let stopper = std::thread::spawn(move || gateway.stop());
    // New connections are refused once the signal is handled.
    test_support::wait_until("the listener to close", Duration::from_secs(10), || {
        let url = url.clone();
        async move { reqwest::Client::new().get(format!("{url}/healthz")).send().await.is_err().then_some(()) }
    })
    .await
    .unwrap_or_else(|e| panic!("{e} (pid {pid})"));

    while let Some(chunk) = response.chunk().await.expect("the stream keeps flowing") {
        body.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert_eq!(events(&body).last().map(|e| e.0.clone()).as_deref(), Some("response.completed"));
    assert_eq!(stopper.join().expect("stopper"), Some(0), "the process exits 0");
}
