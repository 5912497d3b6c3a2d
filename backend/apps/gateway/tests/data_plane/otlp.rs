//! The OTLP trace exporter end to end (decision 0286): a local OTLP/HTTP receiver decodes the
//! gateway's `ExportTraceServiceRequest`s; a request with a client `traceparent` leaves one
//! span per engine phase, all in the client's trace, each a child of the request span, which is
//! a child of the client's span; the upstream call's `traceparent` names the gateway's `send`
//! span; and the spans of the last request are flushed when the process stops.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use prost::Message;
use serde_json::json;
use test_support::wait_until;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";
const PHASES: &[&str] =
    &["authenticate", "decode", "plan", "record", "acquire", "send", "decide", "commit", "deliver", "finish"];

/// One received span, ids in hex.
#[derive(Debug, Clone)]
struct Received {
    name: String,
    trace_id: String,
    span_id: String,
    parent: String,
    service: String,
    attributes: HashMap<String, String>,
}

/// An OTLP/HTTP receiver on its own thread and runtime (the test's runtime may be blocked
/// while it waits for the gateway to stop).
struct Collector {
    url: String,
    spans: Arc<Mutex<Vec<Received>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Collector {
    fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let spans = Arc::new(Mutex::new(Vec::new()));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let store = spans.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            runtime.block_on(async move {
                let router = axum::Router::new().route(
                    "/v1/traces",
                    axum::routing::post(move |body: axum::body::Bytes| {
                        let store = store.clone();
                        async move {
                            let request = ExportTraceServiceRequest::decode(body).expect("an OTLP protobuf body");
                            store.lock().expect("lock").extend(received(&request));
                            ([("content-type", "application/x-protobuf")], Vec::<u8>::new())
                        }
                    }),
                );
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                let serving = axum::serve(listener, router).with_graceful_shutdown(async {
                    let _ = stopped.await;
                });
                serving.await.expect("collector serves");
            });
        });
        Self { url, spans, stop: Some(stop), thread: Some(thread) }
    }

    fn spans(&self) -> Vec<Received> {
        self.spans.lock().expect("lock").clone()
    }

    /// The spans of the trace `trace_id`, once its request span arrived (it ends last).
    async fn trace(&self, trace_id: &str, within: Duration) -> Vec<Received> {
        wait_until("the request's spans", within, || {
            let spans: Vec<Received> = self.spans().into_iter().filter(|s| s.trace_id == trace_id).collect();
            async move { spans.iter().any(|s| s.name == "request").then_some(spans) }
        })
        .await
        .unwrap_or_else(|e| panic!("{e}: received {:?}", self.spans()))
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn text(value: Option<&opentelemetry_proto::tonic::common::v1::AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(Value::StringValue(s)) => s.clone(),
        Some(Value::IntValue(i)) => i.to_string(),
        Some(Value::BoolValue(b)) => b.to_string(),
        Some(Value::DoubleValue(d)) => d.to_string(),
        _ => String::new(),
    }
}

fn received(request: &ExportTraceServiceRequest) -> Vec<Received> {
    let mut out = Vec::new();
    for resource in &request.resource_spans {
        let service = resource
            .resource
            .iter()
            .flat_map(|r| &r.attributes)
            .find(|kv| kv.key == "service.name")
            .map(|kv| text(kv.value.as_ref()))
            .unwrap_or_default();
        for scope in &resource.scope_spans {
            for span in &scope.spans {
                out.push(Received {
                    name: span.name.clone(),
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent: hex(&span.parent_span_id),
                    service: service.clone(),
                    attributes: span.attributes.iter().map(|kv| (kv.key.clone(), text(kv.value.as_ref()))).collect(),
                });
            }
        }
    }
    out
}

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
    let request = spans.iter().find(|s| s.name == "request").expect("the request span");
    assert_eq!(request.parent, CLIENT_SPAN, "the client's span is the request span's parent");
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
