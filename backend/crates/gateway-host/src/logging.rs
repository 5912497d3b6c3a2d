//! Process-wide logging with `tracing`: human-readable text or one JSON object per line, and,
//! with `tracing.otlp_endpoint`, the OTLP trace exporter beside it (`otlp`).
//!
//! The log lines never include the engine's phase spans (`switchboard::phase`) nor the HTTP
//! server spans (`switchboard::http`): both targets are off for the logger whatever
//! `log.level` says, so a line's current span stays the `request` span; with no exporter the
//! phase spans are never built and the server spans' layer is not installed.

use tracing_subscriber::filter::Directive;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

use crate::config::{LogConfig, LogFormat, TracingConfig};
use crate::otlp::TraceExport;

type BoxedLayer = Box<dyn Layer<Registry> + Send + Sync>;

/// Installs the global subscriber. Returns an error naming `log.level` when the filter does not
/// parse. Calling it twice is harmless (the second call keeps the first subscriber).
pub fn init(config: &LogConfig) -> Result<(), crate::ConfigError> {
    install(config, None).map(drop)
}

/// Like [`init`], with the trace exporter of `tracing` when configured, posting with `http` (the
/// process's outbound client; called on the async runtime); its [`TraceExport`] is to be shut
/// down (flushed) when the process stops.
pub fn init_with_traces(
    config: &LogConfig,
    tracing: &TracingConfig,
    http: &gateway_transport::HttpClient,
) -> Result<Option<TraceExport>, crate::ConfigError> {
    install(config, Some((tracing, http)))
}

fn install(
    config: &LogConfig,
    tracing: Option<(&TracingConfig, &gateway_transport::HttpClient)>,
) -> Result<Option<TraceExport>, crate::ConfigError> {
    let invalid = |e: &dyn std::fmt::Display| crate::ConfigError::invalid("log.level", &e.to_string());
    let off = |target: &str| format!("{target}=off").parse::<Directive>().map_err(|e| invalid(&e));
    let filter = EnvFilter::try_new(&config.level)
        .map_err(|e| invalid(&e))?
        .add_directive(off(gateway_core::engine::phase::TARGET)?)
        .add_directive(off(crate::otlp::server_span::TARGET)?);
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let fmt = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(ansi);
    let logger: BoxedLayer = match config.format {
        LogFormat::Text => fmt.with_target(true).with_filter(filter).boxed(),
        // The current span carries the request id and the client's trace id.
        LogFormat::Json => {
            fmt.json().flatten_event(true).with_current_span(true).with_span_list(false).with_filter(filter).boxed()
        }
    };
    let mut layers = vec![logger];
    let mut export = None;
    if let Some((layer, running)) =
        tracing.map(|(tracing, http)| crate::otlp::build::<Registry>(tracing, http)).transpose()?.flatten()
    {
        layers.push(layer.boxed());
        export = Some(running);
    }
    // An already installed subscriber (tests starting several hosts) is not an error.
    drop(tracing_subscriber::registry().with(layers).try_init());
    Ok(export)
}
