//! The host's configuration: its own sections (`server`, `log`, `workers`, `update`, and
//! `tracing`, the exporter beside the log) and the generic loader every root configuration goes
//! through.
//!
//! Every key has a documented default (`docs/configuration.md`); a YAML file and
//! `SWITCHBOARD_*` environment variables override them (see [`load`]). Unknown keys are refused.
//! The root type is the binary's: it composes these sections with the ones each crate owns
//! (decision 0225) and implements [`ConfigRoot`].

mod load;
mod tracing;
mod update;

use std::net::SocketAddr;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use load::{ConfigError, ConfigRoot, ConfigSource, env_name, load, load_with};
pub use tracing::TracingConfig;
pub use update::{RestartMode, UpdateConfig};

/// The environment variable that names the configuration file.
pub const CONFIG_FILE_ENV: &str = "SWITCHBOARD_CONFIG";
/// The prefix of every configuration environment variable.
pub const ENV_PREFIX: &str = "SWITCHBOARD_";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Address the HTTP server listens on.
    pub listen: SocketAddr,
    /// One absolute deadline, counted from the shutdown signal, for in-flight requests.
    pub drain_timeout_seconds: u64,
    /// Largest request body accepted on the client API; larger bodies get 413.
    pub request_body_limit_bytes: usize,
    /// Async runtime worker threads; 0 means one per CPU.
    pub worker_threads: usize,
    /// This replica's stable name across restarts (its successor takes over what a crashed
    /// process left); not set: `<hostname>:<listen port>`.
    pub replica_name: Option<String>,
    /// Directory for the files the gateway writes itself (the generated first-admin password,
    /// the self-update state; in the embedded mode also the SQLite file, the master key and the
    /// serving lock); relative paths are relative to the working directory. Default `.runtime`.
    /// Created (mode 0700) when needed.
    pub data_dir: PathBuf,
    /// A request's head must be complete this long after the connection opened or (HTTP/1.1)
    /// after the previous response ended; a connection that starts no request in this time is
    /// closed.
    pub header_read_timeout_seconds: u64,
    /// Longest silence while a request body is being read; then the read fails.
    pub body_read_timeout_seconds: u64,
    /// A connection with no request in flight for this long is closed (HTTP/2: GOAWAY).
    pub keep_alive_idle_timeout_seconds: u64,
    /// Most open client connections; connections beyond it are answered 503 and closed.
    pub max_connections: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            drain_timeout_seconds: 30,
            request_body_limit_bytes: 32 * 1024 * 1024,
            worker_threads: 0,
            replica_name: None,
            data_dir: PathBuf::from(".runtime"),
            header_read_timeout_seconds: 10,
            body_read_timeout_seconds: 30,
            keep_alive_idle_timeout_seconds: 60,
            max_connections: 16_384,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    /// A `tracing` filter, e.g. `info` or `info,gateway_core=debug`.
    pub level: String,
    pub format: LogFormat,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self { level: "info".to_owned(), format: LogFormat::Text }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorkersConfig {
    /// Time the workers get to stop after the HTTP drain before they are aborted.
    pub shutdown_timeout_seconds: u64,
    /// First delay before a failed or panicked worker is restarted; doubles up to the maximum.
    pub restart_backoff_initial_ms: u64,
    pub restart_backoff_max_ms: u64,
}

impl Default for WorkersConfig {
    fn default() -> Self {
        Self { shutdown_timeout_seconds: 10, restart_backoff_initial_ms: 500, restart_backoff_max_ms: 60_000 }
    }
}

impl ServerConfig {
    /// Rules serde cannot express; the error names the key (`server.…`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.drain_timeout_seconds == 0 {
            return Err(ConfigError::invalid("server.drain_timeout_seconds", "must be at least 1"));
        }
        if self.data_dir.as_os_str().is_empty() {
            return Err(ConfigError::invalid("server.data_dir", "must not be empty"));
        }
        if self.request_body_limit_bytes < 1024 {
            return Err(ConfigError::invalid("server.request_body_limit_bytes", "must be at least 1024"));
        }
        for (key, value) in [
            ("server.header_read_timeout_seconds", self.header_read_timeout_seconds),
            ("server.body_read_timeout_seconds", self.body_read_timeout_seconds),
            ("server.keep_alive_idle_timeout_seconds", self.keep_alive_idle_timeout_seconds),
        ] {
            if value == 0 || value > 3600 {
                return Err(ConfigError::invalid(key, "must be between 1 and 3600"));
            }
        }
        if self.max_connections == 0 {
            return Err(ConfigError::invalid("server.max_connections", "must be at least 1"));
        }
        if let Some(name) = &self.replica_name {
            let valid = !name.is_empty()
                && name.len() <= 200
                && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
            if !valid {
                return Err(ConfigError::invalid("server.replica_name", "must be [A-Za-z0-9._:-]{1,200}"));
            }
        }
        Ok(())
    }
}

impl WorkersConfig {
    /// Rules serde cannot express; the error names the key (`workers.…`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.restart_backoff_initial_ms == 0 || self.restart_backoff_initial_ms > self.restart_backoff_max_ms {
            return Err(ConfigError::invalid(
                "workers.restart_backoff_initial_ms",
                "must be at least 1 and not above workers.restart_backoff_max_ms",
            ));
        }
        Ok(())
    }
}
