//! The root configuration this binary loads: every crate's section under its key. Each section
//! type lives in the crate whose behaviour it configures, with its defaults and its rules
//! (decision 0225); this type only composes them, names their keys from the root and holds the
//! rules that span sections. Loading (file, `SWITCHBOARD_*` environment, errors) is the host's
//! (`gateway_host::config::load_with`).

mod providers;

use gateway_admin::alerting::AlertsConfig;
use gateway_admin::config::AdminConfig;
use gateway_api::MetricsConfig;
use gateway_core::engine::EngineConfig;
use gateway_host::config::{LogConfig, ServerConfig, TracingConfig, UpdateConfig, WorkersConfig};
use gateway_host::{ConfigError, ConfigRoot};
use gateway_store::config::{DatabaseConfig, RedisConfig, SecretsConfig};
use serde::{Deserialize, Serialize};

pub use providers::ProvidersConfig;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// gateway-host: listener, connection limits, drain, data directory.
    pub server: ServerConfig,
    /// gateway-host: the log filter and format.
    pub log: LogConfig,
    /// gateway-host: the worker runtime.
    pub workers: WorkersConfig,
    /// gateway-store: PostgreSQL (production mode) or the embedded SQLite file's readers.
    pub database: DatabaseConfig,
    /// gateway-store: Redis (production mode).
    pub redis: RedisConfig,
    /// gateway-store: the keys that seal secrets at rest.
    pub secrets: SecretsConfig,
    /// gateway-core: the data plane's tunables.
    pub engine: EngineConfig,
    /// The providers' sections and the schedules of the account lifecycle.
    pub providers: ProvidersConfig,
    /// gateway-admin: the first administrator, sessions, login limits, cookies, proxies.
    pub admin: AdminConfig,
    /// gateway-host: the self-update.
    pub update: UpdateConfig,
    /// gateway-api: `GET /metrics` and what the engine records.
    pub metrics: MetricsConfig,
    /// gateway-host: the OTLP trace exporter beside the log; the access log (gateway-api's).
    pub tracing: TracingConfig,
    /// gateway-admin: alert webhooks and delivery retries.
    pub alerts: AlertsConfig,
}

impl ConfigRoot for Config {
    /// Every section's rules, in the order of the keys above. The error names the key.
    fn validate(&self) -> Result<(), ConfigError> {
        self.server.validate()?;
        self.workers.validate()?;
        self.database.validate().map_err(|e| e.under("database"))?;
        self.redis.validate(&self.database).map_err(|e| e.under("redis"))?;
        self.engine.validate().map_err(|e| e.under("engine"))?;
        self.providers.validate().map_err(|e| e.under("providers"))?;
        self.admin.validate().map_err(|e| e.under("admin"))?;
        self.update.validate()?;
        self.metrics.validate().map_err(|e| e.under("metrics"))?;
        self.tracing.validate()?;
        self.alerts.validate().map_err(|e| e.under("alerts"))?;
        Ok(())
    }
}
