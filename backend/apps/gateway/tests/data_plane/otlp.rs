//! The OTLP trace exporter end to end (decisions 0286, 0288): a local OTLP/HTTP receiver
//! decodes the gateway's `ExportTraceServiceRequest`s; a request with a client `traceparent`
//! is one server span (named by its route template), a child of the client's span, whose child
//! is the request span with one span per engine phase, all in the client's trace; the upstream
//! call's `traceparent` names the gateway's `send` span; and the spans of the last request are
//! flushed when the process stops.

use std::time::Duration;

use serde_json::json;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;
use crate::otlp_sink::{Collector, Received, SERVER};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";
const PHASES: &[&str] =
    &["authenticate", "decode", "plan", "record", "acquire", "send", "decide", "commit", "deliver", "finish"];

/// One streamed request with the client's `traceparent`; the account's access token has
/// expired, so the first attempt gets 401 (decided on: refresh and retry) and the second serves.
async fn traced_request(gateway: &Gateway) {
    gateway.sim.expire_access_tokens("acct-a").expect("expire");
    let response = gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .bearer_auth(&gateway.key)
        .header("traceparent", format!("00-{TRACE_ID}-{CLIENT_SPAN}-01"))
        .json(&json!({"model": "gpt-5.4", "input": "hi", "stream": true}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status().as_u16(), 200);
    let body = response.text().await.expect("body");
    assert!(body.contains("response.completed"), "{body}");
}

fn check_chain(spans: &[Received]) {
    let server = spans.iter().find(|s| s.kind == SERVER).expect("the server span");
    assert_eq!(server.name, "POST /v1/responses", "{server:?}");
    assert_eq!(server.parent, CLIENT_SPAN, "the client's span is the server span's parent");
    assert_eq!(server.attributes.get("http.route").map(String::as_str), Some("/v1/responses"), "{server:?}");
    assert_eq!(server.attributes.get("http.request.method").map(String::as_str), Some("POST"), "{server:?}");
    assert_eq!(server.attributes.get("http.response.status_code").map(String::as_str), Some("200"), "{server:?}");
    assert_eq!(server.status, 0, "a 200 leaves the status unset: {server:?}");
    assert_eq!(spans.iter().filter(|s| s.kind == SERVER).count(), 1, "one server span: {spans:?}");
    let request = spans.iter().find(|s| s.name == "request").expect("the request span");
    assert_eq!(request.parent, server.span_id, "the request span is the server span's child");
    assert_eq!(request.trace_id, TRACE_ID, "the client's trace id is kept");
    assert_eq!(request.service, "switchboard");
    for phase in PHASES {
        let span = spans.iter().find(|s| s.name == *phase).unwrap_or_else(|| panic!("no `{phase}` span: {spans:?}"));
        assert_eq!(span.parent, request.span_id, "{span:?}");
        assert_eq!(span.trace_id, TRACE_ID, "{span:?}");
    }
}

#[tokio::test]
async fn each_phase_is_exported_in_the_clients_trace_and_the_upstream_call_names_the_send_span() {
    let collector = Collector::start();
    let accounts = vec![AccountSpec::openai("acct-a")];
    let gateway = Gateway::start_with(accounts, &[("SWITCHBOARD_TRACING_OTLP_ENDPOINT", &collector.url)]).await;
    traced_request(&gateway).await;
    // The batch exporter posts every 5 seconds by default.
    let spans = collector.trace(TRACE_ID, Duration::from_secs(30)).await;
    check_chain(&spans);

    let sends: Vec<&Received> = spans.iter().filter(|s| s.name == "send").collect();
    assert_eq!(sends.len(), 2, "one send span per attempt: {sends:?}");
    let upstream = gateway.sim.requests();
    let calls: Vec<_> = upstream.iter().filter(|r| r.path.ends_with("/codex/responses")).collect();
    assert_eq!(calls.len(), 2);
    let mut named = Vec::new();
    for call in &calls {
        let sent = call.headers.iter().find(|(name, _)| name == "traceparent").map(|(_, v)| v.clone());
        let sent = sent.expect("a traceparent upstream");
        let parts: Vec<&str> = sent.split('-').collect();
        assert_eq!(parts[1], TRACE_ID, "{sent}");
        assert_ne!(parts[2], CLIENT_SPAN, "the gateway's span, not the client's: {sent}");
        assert!(sends.iter().any(|s| s.span_id == parts[2]), "{sent} names a send span: {sends:?}");
        named.push(parts[2].to_owned());
    }
    assert_ne!(named[0], named[1], "each attempt names its own send span");
    assert!(sends.iter().all(|s| s.attributes.get("provider").map(String::as_str) == Some("openai")), "{sends:?}");
    let outcomes: Vec<&str> = sends.iter().filter_map(|s| s.attributes.get("outcome")).map(String::as_str).collect();
    assert!(outcomes.contains(&"ok") && outcomes.contains(&"upstream_unauthorized"), "{outcomes:?}");
}

#[tokio::test]
async fn the_last_requests_spans_are_flushed_when_the_gateway_stops() {
    let collector = Collector::start();
    let accounts = vec![AccountSpec::openai("acct-a")];
    // No scheduled export within the test: only the flush at shutdown can deliver the spans.
    let env = [("SWITCHBOARD_TRACING_OTLP_ENDPOINT", collector.url.as_str()), ("OTEL_BSP_SCHEDULE_DELAY", "600000")];
    let mut gateway = Gateway::start_with(accounts, &env).await;
    traced_request(&gateway).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(collector.spans().iter().all(|s| s.trace_id != TRACE_ID), "nothing exported before the stop");
    assert_eq!(gateway.stop(), Some(0), "a clean stop");
    let spans = collector.trace(TRACE_ID, Duration::from_secs(5)).await;
    check_chain(&spans);
}
