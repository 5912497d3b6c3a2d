//! Process-wide logging with `tracing`: human-readable text or one JSON object per line.

use tracing_subscriber::EnvFilter;

use crate::config::{LogConfig, LogFormat};

/// Installs the global subscriber. Returns an error naming `log.level` when the filter does not
/// parse. Calling it twice is harmless (the second call keeps the first subscriber).
pub fn init(config: &LogConfig) -> Result<(), crate::ConfigError> {
    let filter =
        EnvFilter::try_new(&config.level).map_err(|e| crate::ConfigError::invalid("log.level", &e.to_string()))?;
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    let installed = match config.format {
        LogFormat::Text => builder.with_target(true).try_init(),
        // The current span carries the request id and the client's trace id.
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(true).with_span_list(false).try_init(),
    };
    // An already installed subscriber (tests starting several hosts) is not an error.
    drop(installed);
    Ok(())
}
