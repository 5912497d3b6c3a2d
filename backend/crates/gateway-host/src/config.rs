//! The typed configuration of the whole process.
//!
//! Every key has a documented default (`docs/configuration.md`); a YAML file and
//! `SWITCHBOARD_*` environment variables override them (see [`load`]). Unknown keys are refused.
//! Sections are plain data: the composition root maps them onto each crate's own settings.

mod admin;
mod load;
mod observability;
mod update;
mod xai;

use std::net::SocketAddr;
use std::path::PathBuf;

use gateway_core::redaction::url_userinfo_redacted;
use serde::{Deserialize, Serialize};

pub use admin::AdminConfig;
pub use load::{ConfigError, ConfigSource, env_name, load, load_with};
pub use observability::{AlertsConfig, MetricsConfig, TracingConfig, WebhookConfig};
pub use update::{RestartMode, UpdateConfig};
pub use xai::XaiConfig;

/// The environment variable that names the configuration file.
pub const CONFIG_FILE_ENV: &str = "SWITCHBOARD_CONFIG";
/// The prefix of every configuration environment variable.
pub const ENV_PREFIX: &str = "SWITCHBOARD_";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub log: LogConfig,
    pub workers: WorkersConfig,
    pub database: DatabaseConfig,
    pub redis: RedisConfig,
    pub secrets: SecretsConfig,
    pub engine: EngineConfig,
    pub providers: ProvidersConfig,
    pub admin: AdminConfig,
    pub update: UpdateConfig,
    pub metrics: MetricsConfig,
    pub tracing: TracingConfig,
    pub alerts: AlertsConfig,
}

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

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DatabaseConfig {
    /// `postgres://…` for production mode; empty means the embedded mode.
    pub url: Option<String>,
    pub max_connections: u32,
}

impl Default for DatabaseConfig {
    fn default() -> Self {
        Self { url: None, max_connections: 16 }
    }
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedisConfig {
    /// `redis://…`; required whenever `database.url` is set.
    pub url: Option<String>,
    /// Namespace of every key this deployment writes.
    pub key_prefix: String,
}

impl Default for RedisConfig {
    fn default() -> Self {
        Self { url: None, key_prefix: "switchboard".to_owned() }
    }
}

// The URLs may carry a password: `Debug` shows them with the user name and password redacted.
impl std::fmt::Debug for DatabaseConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatabaseConfig")
            .field("url", &self.url.as_deref().map(url_userinfo_redacted))
            .field("max_connections", &self.max_connections)
            .finish()
    }
}

impl std::fmt::Debug for RedisConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisConfig")
            .field("url", &self.url.as_deref().map(url_userinfo_redacted))
            .field("key_prefix", &self.key_prefix)
            .finish()
    }
}

/// Keys that encrypt secrets at rest (provider credentials, backup storage secrets).
///
/// Each key is written `ID:BASE64` where the base64 decodes to 32 bytes. New ciphertexts use
/// `master_key`; `retired_master_keys` can still decrypt older ones (rotation: make the new key
/// current, list the old one as retired, re-encrypt, then drop it).
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SecretsConfig {
    pub master_key: Option<String>,
    pub retired_master_keys: Vec<String>,
}

impl std::fmt::Debug for SecretsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretsConfig")
            .field("master_key", &self.master_key.as_ref().map(|_| "[REDACTED]"))
            .field("retired_master_keys", &format_args!("[{} REDACTED]", self.retired_master_keys.len()))
            .finish()
    }
}

/// The data plane's tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineConfig {
    /// Most upstream calls one request makes before it is committed to the client.
    pub max_attempts: u32,
    /// TTL of admission and account slots and of the replica heartbeat; the heartbeat renews
    /// every held slot each third of it, so a dead process's slots are free within one TTL.
    pub lease_ttl_seconds: u64,
    /// A request row still `running` this long after its start is recovered as `incomplete`
    /// (the backstop behind the heartbeat-based recovery).
    pub request_deadline_seconds: u64,
    /// Longest a request waits for an account's request interval instead of failing.
    pub max_interval_wait_ms: u64,
    /// Bounds of the in-process observation queue.
    pub observation_queue_capacity: usize,
    pub observation_queue_bytes: usize,
    /// How long the flush worker waits for more observations before writing a batch.
    pub observation_flush_linger_ms: u64,
    /// How often each replica polls `config_revision` (the correctness path of convergence).
    pub snapshot_poll_ms: u64,
    /// A full snapshot reload at least this often, for facts that do not bump the revision.
    pub snapshot_reload_seconds: u64,
    /// Consecutive infrastructure failures (connect failures, 5xx) of a provider that open its
    /// circuit.
    pub circuit_failure_threshold: u32,
    /// How long an open circuit refuses requests before one probe may go through.
    pub circuit_open_seconds: u64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            lease_ttl_seconds: 30,
            request_deadline_seconds: 3600,
            max_interval_wait_ms: 5000,
            observation_queue_capacity: 65_536,
            observation_queue_bytes: 64 * 1024 * 1024,
            observation_flush_linger_ms: 250,
            snapshot_poll_ms: 2000,
            snapshot_reload_seconds: 60,
            circuit_failure_threshold: 5,
            circuit_open_seconds: 30,
        }
    }
}

/// Upstream providers.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProvidersConfig {
    /// Allow plain `http://` upstream URLs on loopback addresses (tests, the simulator). Every
    /// other upstream URL must be `https://`.
    pub allow_http_loopback: bool,
    /// How often the credential refresh pass runs (once per period across replicas).
    pub refresh_period_seconds: u64,
    /// Most accounts one refresh pass handles.
    pub refresh_batch: u32,
    /// How often the quota probe pass runs (once per period across replicas); an account whose
    /// quota was not observed for this long is probed.
    pub quota_probe_period_seconds: u64,
    /// Most accounts one quota probe pass probes.
    pub quota_probe_batch: u32,
    /// How often each replica re-reads the model catalogs (conditional on the entity tag).
    pub catalog_refresh_seconds: u64,
    /// The egress proxy (`http://[user:pass@]host[:port]` or `socks5://…`) of every account with
    /// neither its own nor a group's (docs/accounts.md, "Egress proxies"). A secret: never shown.
    pub egress_proxy: Option<String>,
    pub openai: OpenAiConfig,
    pub xai: XaiConfig,
}

impl std::fmt::Debug for ProvidersConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProvidersConfig")
            .field("allow_http_loopback", &self.allow_http_loopback)
            .field("refresh_period_seconds", &self.refresh_period_seconds)
            .field("refresh_batch", &self.refresh_batch)
            .field("quota_probe_period_seconds", &self.quota_probe_period_seconds)
            .field("quota_probe_batch", &self.quota_probe_batch)
            .field("catalog_refresh_seconds", &self.catalog_refresh_seconds)
            .field("egress_proxy", &self.egress_proxy.as_ref().map(|_| "[REDACTED]"))
            .field("openai", &self.openai)
            .field("xai", &self.xai)
            .finish()
    }
}

impl Default for ProvidersConfig {
    fn default() -> Self {
        Self {
            allow_http_loopback: false,
            refresh_period_seconds: 15,
            refresh_batch: 200,
            quota_probe_period_seconds: 300,
            quota_probe_batch: 100,
            catalog_refresh_seconds: 300,
            egress_proxy: None,
            openai: OpenAiConfig::default(),
            xai: XaiConfig::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpenAiConfig {
    /// ChatGPT backend base URL.
    pub backend_url: String,
    /// OAuth issuer base URL.
    pub auth_url: String,
    pub client_id: String,
    /// `originator` header sent upstream.
    pub originator: String,
    /// Codex client version sent as `version` and in the user agent; not set: the Codex version
    /// the OpenAI provider pins (`request_profile.rs`, the one place to bump it).
    pub client_version: Option<String>,
    /// PEM file of extra CA certificates trusted for upstream TLS beside the platform roots.
    pub extra_ca_file: Option<String>,
    pub header_timeout_seconds: u64,
    pub stream_idle_timeout_seconds: u64,
    /// Appcast (Sparkle RSS or `{"version"}` JSON) whose newest version the request profile
    /// follows; not set: the configured `client_version` stays.
    pub appcast_url: Option<String>,
    pub version_check_period_seconds: u64,
    /// Bytes the prewarms answered locally (upstream socket refused) may hold per client key.
    pub prewarm_key_budget_bytes: usize,
    /// Bytes they may hold in total.
    pub prewarm_total_budget_bytes: usize,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        Self {
            backend_url: "https://chatgpt.com/backend-api".to_owned(),
            auth_url: "https://auth.openai.com".to_owned(),
            client_id: "app_EMoamEEZ73f0CkXaXp7hrann".to_owned(),
            originator: "codex_cli_rs".to_owned(),
            client_version: None,
            extra_ca_file: None,
            header_timeout_seconds: 90,
            stream_idle_timeout_seconds: 300,
            appcast_url: None,
            version_check_period_seconds: 6 * 3600,
            prewarm_key_budget_bytes: 8 * 1024 * 1024,
            prewarm_total_budget_bytes: 64 * 1024 * 1024,
        }
    }
}

impl Config {
    /// Cross-field rules that serde cannot express. The error names the offending key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.server.drain_timeout_seconds == 0 {
            return Err(ConfigError::invalid("server.drain_timeout_seconds", "must be at least 1"));
        }
        if self.server.data_dir.as_os_str().is_empty() {
            return Err(ConfigError::invalid("server.data_dir", "must not be empty"));
        }
        if self.server.request_body_limit_bytes < 1024 {
            return Err(ConfigError::invalid("server.request_body_limit_bytes", "must be at least 1024"));
        }
        for (key, value) in [
            ("server.header_read_timeout_seconds", self.server.header_read_timeout_seconds),
            ("server.body_read_timeout_seconds", self.server.body_read_timeout_seconds),
            ("server.keep_alive_idle_timeout_seconds", self.server.keep_alive_idle_timeout_seconds),
        ] {
            if value == 0 || value > 3600 {
                return Err(ConfigError::invalid(key, "must be between 1 and 3600"));
            }
        }
        if self.server.max_connections == 0 {
            return Err(ConfigError::invalid("server.max_connections", "must be at least 1"));
        }
        if self.workers.restart_backoff_initial_ms == 0
            || self.workers.restart_backoff_initial_ms > self.workers.restart_backoff_max_ms
        {
            return Err(ConfigError::invalid(
                "workers.restart_backoff_initial_ms",
                "must be at least 1 and not above workers.restart_backoff_max_ms",
            ));
        }
        if let Some(url) = &self.database.url
            && !(url.starts_with("postgres://") || url.starts_with("postgresql://"))
        {
            return Err(ConfigError::invalid("database.url", "must start with postgres:// or postgresql://"));
        }
        if let Some(url) = &self.redis.url
            && !(url.starts_with("redis://") || url.starts_with("rediss://"))
        {
            return Err(ConfigError::invalid("redis.url", "must start with redis:// or rediss://"));
        }
        if self.database.url.is_some() && self.redis.url.is_none() {
            return Err(ConfigError::invalid("redis.url", "is required when database.url is set (production mode)"));
        }
        if self.database.max_connections == 0 {
            return Err(ConfigError::invalid("database.max_connections", "must be at least 1"));
        }
        if self.engine.max_attempts == 0 || self.engine.max_attempts > 16 {
            return Err(ConfigError::invalid("engine.max_attempts", "must be between 1 and 16"));
        }
        if !(3..=3600).contains(&self.engine.lease_ttl_seconds) {
            return Err(ConfigError::invalid("engine.lease_ttl_seconds", "must be between 3 and 3600"));
        }
        if self.engine.request_deadline_seconds < 60 {
            return Err(ConfigError::invalid("engine.request_deadline_seconds", "must be at least 60"));
        }
        if let Some(name) = &self.server.replica_name {
            let valid = !name.is_empty()
                && name.len() <= 200
                && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
            if !valid {
                return Err(ConfigError::invalid("server.replica_name", "must be [A-Za-z0-9._:-]{1,200}"));
            }
        }
        if self.engine.observation_queue_capacity == 0 || self.engine.observation_queue_bytes < 1024 * 1024 {
            return Err(ConfigError::invalid(
                "engine.observation_queue_bytes",
                "the observation queue needs a capacity of at least 1 and 1 MiB",
            ));
        }
        if !(1..=1000).contains(&self.engine.circuit_failure_threshold) {
            return Err(ConfigError::invalid("engine.circuit_failure_threshold", "must be between 1 and 1000"));
        }
        if !(1..=3600).contains(&self.engine.circuit_open_seconds) {
            return Err(ConfigError::invalid("engine.circuit_open_seconds", "must be between 1 and 3600"));
        }
        if self.engine.snapshot_poll_ms < 100 {
            return Err(ConfigError::invalid("engine.snapshot_poll_ms", "must be at least 100"));
        }
        for (key, url) in [
            ("providers.openai.backend_url", &self.providers.openai.backend_url),
            ("providers.openai.auth_url", &self.providers.openai.auth_url),
        ] {
            if !(url.starts_with("https://") || url.starts_with("http://")) {
                return Err(ConfigError::invalid(key, "must be an http(s) URL"));
            }
        }
        if let Some(url) = &self.providers.openai.appcast_url
            && !(url.starts_with("https://") || url.starts_with("http://"))
        {
            return Err(ConfigError::invalid("providers.openai.appcast_url", "must be an http(s) URL"));
        }
        let openai = &self.providers.openai;
        if openai.prewarm_key_budget_bytes < 1024 || openai.prewarm_key_budget_bytes > openai.prewarm_total_budget_bytes
        {
            return Err(ConfigError::invalid(
                "providers.openai.prewarm_key_budget_bytes",
                "must be at least 1024 and not above providers.openai.prewarm_total_budget_bytes",
            ));
        }
        for (key, value) in [
            ("providers.refresh_period_seconds", self.providers.refresh_period_seconds),
            ("providers.quota_probe_period_seconds", self.providers.quota_probe_period_seconds),
            ("providers.catalog_refresh_seconds", self.providers.catalog_refresh_seconds),
            ("providers.openai.version_check_period_seconds", self.providers.openai.version_check_period_seconds),
            ("providers.xai.version_check_period_seconds", self.providers.xai.version_check_period_seconds),
            ("providers.refresh_batch", u64::from(self.providers.refresh_batch)),
            ("providers.quota_probe_batch", u64::from(self.providers.quota_probe_batch)),
        ] {
            if value == 0 {
                return Err(ConfigError::invalid(key, "must be at least 1"));
            }
        }
        self.admin.validate()?;
        self.update.validate()?;
        self.metrics.validate()?;
        self.alerts.validate()?;
        if self.redis.key_prefix.is_empty() || self.redis.key_prefix.contains(['{', '}', ' ']) {
            return Err(ConfigError::invalid("redis.key_prefix", "must be non-empty without braces or spaces"));
        }
        Ok(())
    }
}
