//! The HTTP server spans with the trace exporter (decision 0288): one per request, named by the
//! matched route template, never the raw path or the query; with no client `traceparent` the
//! exporter's trace id reaches the request's log lines and the access log; a WebSocket's turns
//! are children of the upgrade request's server span.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use test_support::wait_until;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;
use crate::otlp_sink::{Collector, ERROR, Received, SERVER};

const WITHIN: Duration = Duration::from_secs(30);

fn attribute<'a>(span: &'a Received, name: &str) -> Option<&'a str> {
    span.attributes.get(name).map(String::as_str)
}

/// The JSON log line containing `needle`, once it is written.
async fn log_line(gateway: &Gateway, needle: &str) -> Value {
    let line = wait_until("the log line", Duration::from_secs(10), || {
        let log = gateway.log();
        let needle = needle.to_owned();
        async move { log.lines().find(|l| l.contains(&needle)).map(str::to_owned) }
    })
    .await
    .unwrap_or_else(|e| panic!("{e}: no `{needle}` in\n{}", gateway.log()));
    serde_json::from_str(&line).expect("a JSON log line")
}

#[tokio::test]
async fn without_a_traceparent_the_logs_carry_the_trace_id_the_exporter_assigned() {
    let collector = Collector::start();
    let env =
        [("SWITCHBOARD_TRACING_OTLP_ENDPOINT", collector.url.as_str()), ("SWITCHBOARD_TRACING_ACCESS_LOG", "true")];
    let gateway = Gateway::start_with(vec![AccountSpec::openai("acct-a")], &env).await;
    gateway.sim.script("acct-a", "status=500", 1).expect("script");
    let response = gateway
        .client()
        .post(format!("{}/v1/responses?probe=secret-query", gateway.url))
        .bearer_auth(&gateway.key)
        .json(&json!({"model": "gpt-5.4", "input": "hi", "stream": true}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status().as_u16(), 503, "one account, answering 500");
    response.bytes().await.expect("body");

    let attempt = log_line(&gateway, "attempt failed").await;
    let trace_id = attempt["span"]["trace_id"].as_str().unwrap_or_default().to_owned();
    assert!(
        gateway_core::trace_context::trace_id(&format!("00-{trace_id}-00f067aa0ba902b7-01")).is_some(),
        "{attempt}"
    );
    let access = log_line(&gateway, r#""path":"/v1/responses","#).await;
    assert_eq!(access["target"], "switchboard::access", "{access}");
    assert_eq!(access["span"]["trace_id"].as_str(), Some(trace_id.as_str()), "{access}");

    let spans = collector.trace(&trace_id, WITHIN).await;
    let server = spans.iter().find(|s| s.kind == SERVER).expect("the server span");
    assert_eq!(server.name, "POST /v1/responses", "{server:?}");
    assert_eq!(server.parent, "", "no client span: the server span is the trace's root");
    assert_eq!(attribute(server, "http.route"), Some("/v1/responses"), "{server:?}");
    assert_eq!(attribute(server, "http.response.status_code"), Some("503"), "{server:?}");
    assert_eq!(server.status, ERROR, "a 5xx is an error: {server:?}");
    let request = spans.iter().find(|s| s.name == "request").expect("the request span");
    assert_eq!(request.parent, server.span_id, "{request:?}");
    assert_eq!(attribute(request, "trace_id"), Some(trace_id.as_str()), "{request:?}");
    let everything = format!("{:?}", collector.spans());
    assert!(!everything.contains("secret-query"), "no query string in any span: {everything}");
}

#[tokio::test]
async fn routes_with_ids_and_other_endpoints_are_named_by_their_template() {
    let collector = Collector::start();
    let env = [("SWITCHBOARD_TRACING_OTLP_ENDPOINT", collector.url.as_str())];
    let gateway = Gateway::start_with(vec![AccountSpec::openai("acct-a")], &env).await;
    let model = gateway
        .client()
        .get(format!("{}/v1/models/gpt-5.4", gateway.url))
        .bearer_auth(&gateway.key)
        .send()
        .await
        .expect("request");
    assert_eq!(model.status().as_u16(), 200);

    let spans = collector.server_spans("GET /v1/models/{id}", 1, WITHIN).await;
    assert_eq!(attribute(&spans[0], "http.route"), Some("/v1/models/{id}"), "{:?}", spans[0]);
    assert_eq!(attribute(&spans[0], "http.response.status_code"), Some("200"), "{:?}", spans[0]);
    assert_eq!(spans[0].status, 0, "{:?}", spans[0]);
    // The harness polled readiness: the health routes have their server spans too.
    let ready = collector.server_spans("GET /readyz", 1, WITHIN).await;
    assert_eq!(attribute(&ready[0], "http.route"), Some("/readyz"));
    assert!(collector.spans().iter().all(|s| !s.name.contains("gpt-5.4")), "{:?}", collector.spans());
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn turn(socket: &mut Socket) {
    let frame = json!({"type": "response.create", "model": "gpt-5.4", "store": false, "input": "hi"});
    socket.send(Message::text(frame.to_string())).await.expect("send");
    while let Some(message) = socket.next().await {
        let Ok(Message::Text(text)) = message else { continue };
        let event: Value = serde_json::from_str(text.as_str()).expect("json event");
        match event["type"].as_str() {
            Some("response.completed") => return,
            Some("response.failed" | "error") => panic!("the turn failed: {event}"),
            _ => {}
        }
    }
    panic!("the socket closed before the turn completed");
}

#[tokio::test]
async fn a_websockets_turns_are_children_of_the_upgrade_requests_server_span() {
    const TRACE_ID: &str = "5bf92f3577b34da6a3ce929d0e0e4737";
    let collector = Collector::start();
    let env = [("SWITCHBOARD_TRACING_OTLP_ENDPOINT", collector.url.as_str())];
    let gateway = Gateway::start_with(vec![AccountSpec::openai("acct-a")], &env).await;
    let mut request =
        (gateway.url.replacen("http://", "ws://", 1) + "/v1/responses").into_client_request().expect("url");
    let headers = request.headers_mut();
    headers.insert("authorization", format!("Bearer {}", gateway.key).parse().expect("header"));
    headers.insert("openai-beta", "responses_websockets=2026-02-06".parse().expect("header"));
    headers.insert("traceparent", format!("00-{TRACE_ID}-00f067aa0ba902b7-01").parse().expect("header"));
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.expect("websocket connects");
    turn(&mut socket).await;
    turn(&mut socket).await;
    socket.close(None).await.expect("close");

    let spans = wait_until("both turns' request spans", WITHIN, || {
        let spans: Vec<Received> = collector.spans().into_iter().filter(|s| s.trace_id == TRACE_ID).collect();
        async move { (spans.iter().filter(|s| s.name == "request").count() == 2).then_some(spans) }
    })
    .await
    .unwrap_or_else(|e| panic!("{e}: {:?}", collector.spans()));
    let upgrade = spans.iter().find(|s| s.kind == SERVER).expect("the upgrade's server span");
    assert_eq!(upgrade.name, "GET /v1/responses", "{upgrade:?}");
    assert_eq!(upgrade.parent, "00f067aa0ba902b7", "the client's span is the upgrade's parent");
    assert_eq!(attribute(upgrade, "http.response.status_code"), Some("101"), "{upgrade:?}");
    for request in spans.iter().filter(|s| s.name == "request") {
        assert_eq!(request.parent, upgrade.span_id, "{request:?}");
    }
}
