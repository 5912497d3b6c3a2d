//! A local OTLP/HTTP receiver for the trace exporter's tests (data plane and admin API): it
//! decodes the gateway's `ExportTraceServiceRequest`s into [`Received`] spans.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use prost::Message;
use test_support::wait_until;

/// One received span, ids in hex.
#[derive(Debug, Clone)]
pub struct Received {
    pub name: String,
    pub trace_id: String,
    pub span_id: String,
    pub parent: String,
    pub service: String,
    /// `SpanKind` (2 = server, 1 = internal).
    pub kind: i32,
    /// `StatusCode` (0 = unset, 1 = ok, 2 = error).
    pub status: i32,
    pub attributes: HashMap<String, String>,
}

/// The OTLP `SpanKind` of a server span.
pub const SERVER: i32 = 2;
/// The OTLP `StatusCode` of an error.
pub const ERROR: i32 = 2;

/// An OTLP/HTTP receiver on its own thread and runtime (the test's runtime may be blocked
/// while it waits for the gateway to stop).
pub struct Collector {
    pub url: String,
    spans: Arc<Mutex<Vec<Received>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Collector {
    pub fn start() -> Self {
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

    pub fn spans(&self) -> Vec<Received> {
        self.spans.lock().expect("lock").clone()
    }

    /// The spans of the trace `trace_id`, once its server span and its request span arrived
    /// (they end last).
    pub async fn trace(&self, trace_id: &str, within: Duration) -> Vec<Received> {
        wait_until("the request's spans", within, || {
            let spans: Vec<Received> = self.spans().into_iter().filter(|s| s.trace_id == trace_id).collect();
            let done = spans.iter().any(|s| s.kind == SERVER) && spans.iter().any(|s| s.name == "request");
            async move { done.then_some(spans) }
        })
        .await
        .unwrap_or_else(|e| panic!("{e}: received {:?}", self.spans()))
    }

    /// The server spans named `name`, once `count` of them arrived.
    pub async fn server_spans(&self, name: &str, count: usize, within: Duration) -> Vec<Received> {
        wait_until("the server spans", within, || {
            let spans: Vec<Received> =
                self.spans().into_iter().filter(|s| s.kind == SERVER && s.name == name).collect();
            async move { (spans.len() >= count).then_some(spans) }
        })
        .await
        .unwrap_or_else(|e| panic!("{e}: no {count} `{name}` server spans in {:?}", self.spans()))
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
                    kind: span.kind,
                    status: span.status.as_ref().map_or(0, |s| s.code),
                    attributes: span.attributes.iter().map(|kv| (kv.key.clone(), text(kv.value.as_ref()))).collect(),
                });
            }
        }
    }
    out
}
