//! The `providers` section: each provider crate's own section (`openai`, `xai`) and the keys
//! they share — the loopback allowance of the URL guard and the schedules of the account
//! lifecycle workers (credential refresh, quota probes, catalog sync) this binary registers.
//! The type lives here because it composes the provider crates, which no library crate may name
//! together (decision 0225).

use gateway_core::config::InvalidConfig;
use provider_openai::OpenAiConfig;
use provider_xai::XaiConfig;
use serde::{Deserialize, Serialize};

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

impl ProvidersConfig {
    /// The providers' own rules, then the shared keys'; keys relative to the section.
    pub fn validate(&self) -> Result<(), InvalidConfig> {
        self.openai.validate().map_err(|e| e.under("openai"))?;
        self.xai.validate().map_err(|e| e.under("xai"))?;
        for (key, value) in [
            ("refresh_period_seconds", self.refresh_period_seconds),
            ("quota_probe_period_seconds", self.quota_probe_period_seconds),
            ("catalog_refresh_seconds", self.catalog_refresh_seconds),
            ("refresh_batch", u64::from(self.refresh_batch)),
            ("quota_probe_batch", u64::from(self.quota_probe_batch)),
        ] {
            if value == 0 {
                return Err(InvalidConfig::new(key, "must be at least 1"));
            }
        }
        Ok(())
    }
}
