//! Trace context and request logs end to end: a client's `traceparent` reaches the upstream
//! unchanged, the engine's JSON log lines carry the request id and the trace id, and the access
//! log writes one line per request without the query string.

use std::time::Duration;

use serde_json::json;
use test_support::wait_until;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

#[tokio::test]
async fn a_traceparent_is_forwarded_and_logged_with_the_request_id() {
    let gateway =
        Gateway::start_with(vec![AccountSpec::openai("acct-a")], &[("SWITCHBOARD_TRACING_ACCESS_LOG", "true")]).await;
    gateway.sim.script("acct-a", "status=500", 1).expect("script");
    let response = gateway
        .client()
        .post(format!("{}/v1/responses?probe=secret-query", gateway.url))
        .bearer_auth(&gateway.key)
        .header("traceparent", TRACEPARENT)
        .json(&json!({"model": "gpt-5.4", "input": "hi", "stream": true}))
        .send()
        .await
        .expect("request");
    // One account, answering 500: the client gets 503 after the failed attempt.
    let status = response.status().as_u16();
    assert_eq!(status, 503);
    let request_id =
        response.headers().get("x-request-id").and_then(|v| v.to_str().ok()).map(str::to_owned).expect("request id");
    response.bytes().await.expect("body");

    let upstream = gateway.sim.requests();
    let calls: Vec<_> = upstream.iter().filter(|r| r.path.ends_with("/codex/responses")).collect();
    assert!(!calls.is_empty());
    for call in &calls {
        let sent = call.headers.iter().find(|(name, _)| name == "traceparent").map(|(_, v)| v.as_str());
        assert_eq!(sent, Some(TRACEPARENT), "forwarded unchanged");
    }

    // The failed attempt's log line sits in the request span: request id and trace id.
    let log = wait_until("the attempt log line", Duration::from_secs(10), || {
        let log = gateway.log();
        async move { log.lines().any(|l| l.contains("attempt failed")).then_some(log) }
    })
    .await
    .expect("logged");
    let line = log.lines().find(|l| l.contains("attempt failed")).expect("line");
    let entry: serde_json::Value = serde_json::from_str(line).expect("JSON log line");
    assert_eq!(entry["span"]["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736", "{line}");
    assert_eq!(entry["span"]["request_id"].as_str(), Some(request_id.as_str()), "{line}");
    let access = wait_until("the access log line", Duration::from_secs(10), || {
        let log = gateway.log();
        async move {
            log.lines().find(|l| l.contains("switchboard::access") && l.contains("/v1/responses")).map(str::to_owned)
        }
    })
    .await
    .expect("access line");
    assert!(access.contains(&format!("\"status\":{status}")), "{access}");
    assert!(access.contains(&request_id), "{access}");
    assert!(access.contains(TRACEPARENT.split('-').nth(1).expect("id")), "{access}");
    assert!(!log.contains("secret-query"), "no query string in the logs");
}
