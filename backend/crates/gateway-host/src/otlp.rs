//! The OTLP trace exporter (`tracing.otlp_endpoint`, decision 0286): a `tracing-opentelemetry`
//! layer that turns the HTTP server spans ([`server_span`], decision 0288), the engine's
//! `request` span and its phase spans into OpenTelemetry spans, batched and posted as
//! OTLP/HTTP protobuf. Off by default; when on, the W3C propagator makes a client's
//! `traceparent` the parent of the server span, and the upstream call's `traceparent` names
//! the gateway's `send` span (installed into `gateway_core::trace_context`).
//!
//! The batch processor exports from its own thread; each post goes through the gateway's one
//! outbound stack ([`export_client`], decision 0341) on the async runtime, so nothing of the
//! exporter runs on the request path beyond ending a span into a bounded queue (spans past its
//! capacity are dropped, never waited for). [`TraceExport::shutdown`] flushes what is
//! queued: the spans of the last requests are not lost when the process stops.

pub mod export_client;
pub mod server_span;

use std::collections::HashMap;
use std::time::Duration;

use gateway_core::engine::phase;
use gateway_transport::HttpClient;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
use tracing::{Level, Metadata};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::registry::LookupSpan;

use self::export_client::ExportClient;
use crate::config::{ConfigError, TracingConfig};

/// Longest wait for one export POST.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// The running exporter; [`shutdown`](Self::shutdown) flushes it.
pub struct TraceExport {
    provider: SdkTracerProvider,
}

impl TraceExport {
    /// `router` with one server span per request (decision 0288); to be applied last, around
    /// every route and layer (the access log's included).
    pub fn instrument(&self, router: axum::Router) -> axum::Router {
        server_span::with_server_spans(router)
    }

    /// Exports what is still queued and stops the exporter (off the async runtime's threads:
    /// the flush blocks until the collector answers or the export times out).
    pub async fn shutdown(self) {
        let provider = self.provider;
        let flushed = std::thread::spawn(move || provider.shutdown());
        let joined = tokio::task::spawn_blocking(move || flushed.join()).await;
        match joined {
            Ok(Ok(Ok(()))) => tracing::debug!("trace exporter flushed"),
            Ok(Ok(Err(error))) => tracing::warn!(%error, "trace exporter did not flush at shutdown"),
            _ => tracing::warn!("trace exporter panicked at shutdown"),
        }
    }
}

/// The exporter and its layer when `tracing.otlp_endpoint` is set, posting with `http` on the
/// current tokio runtime (called from within it).
pub fn build<S>(
    config: &TracingConfig,
    http: &HttpClient,
) -> Result<Option<(impl Layer<S> + use<S>, TraceExport)>, ConfigError>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    let Some(url) = config.traces_url() else { return Ok(None) };
    let headers: HashMap<String, String> = config
        .otlp_header_pairs()
        .ok_or_else(|| ConfigError::invalid("tracing.otlp_headers", "must be `name=value` pairs"))?
        .into_iter()
        .collect();
    let runtime = tokio::runtime::Handle::try_current()
        .map_err(|_| ConfigError::invalid("tracing.otlp_endpoint", "the exporter needs the async runtime"))?;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(ExportClient::new(http.clone(), runtime, EXPORT_TIMEOUT))
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(url)
        .with_headers(headers)
        .with_timeout(EXPORT_TIMEOUT)
        .build()
        .map_err(|e| ConfigError::invalid("tracing.otlp_endpoint", &e.to_string()))?;
    let resource = opentelemetry_sdk::Resource::builder().with_service_name(config.service_name.clone()).build();
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(config.sample_ratio))))
        .with_resource(resource)
        .build();
    let tracer = provider.tracer("switchboard");
    let layer = tracing_opentelemetry::layer().with_tracer(tracer).with_filter(filter_fn(exported));
    gateway_core::trace_context::install(gateway_core::trace_context::Propagation { adopt, inject, current });
    Ok(Some((layer, TraceExport { provider })))
}

/// What the exporter sees: the server spans, the request span, the phase spans, and warnings
/// and errors (as span events).
fn exported(metadata: &Metadata<'_>) -> bool {
    if metadata.is_span() {
        metadata.target() == server_span::TARGET
            || metadata.target() == phase::TARGET
            || (metadata.target() == "gateway_core::engine" && metadata.name() == "request")
    } else {
        *metadata.level() <= Level::WARN
    }
}

fn adopt(span: &tracing::Span, traceparent: &str, tracestate: Option<&str>) {
    let mut carrier = HashMap::from([("traceparent".to_owned(), traceparent.to_owned())]);
    if let Some(state) = tracestate {
        carrier.insert("tracestate".to_owned(), state.to_owned());
    }
    let parent = TraceContextPropagator::new().extract(&carrier);
    // Fails only for a span the exporter does not see; it then has no parent to take.
    let _ = span.set_parent(parent);
}

fn inject(span: &tracing::Span) -> Option<String> {
    traceparent(&span.context())
}

/// The innermost exported span entered on this thread (spans the exporter does not see never
/// become the current OpenTelemetry context).
fn current() -> Option<String> {
    traceparent(&opentelemetry::Context::current())
}

fn traceparent(context: &opentelemetry::Context) -> Option<String> {
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(context, &mut carrier);
    carrier.remove("traceparent")
}
