//! The `tracing` section: the access log and the OTLP trace exporter (decision 0286). The host
//! owns it because the host installs the log and the exporter; gateway-api only reads
//! `access_log` (the binary passes it on).

use serde::{Deserialize, Serialize};

use super::ConfigError;

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TracingConfig {
    /// One `info` line per HTTP request (method, path, status, duration, request id).
    pub access_log: bool,
    /// An OTLP/HTTP (protobuf) collector, `http(s)://host:4318`: the request and phase spans
    /// go to `<endpoint>/v1/traces` (an endpoint already ending so is used as is). Unset: no
    /// exporter, and the phase spans are never built.
    pub otlp_endpoint: Option<String>,
    /// Headers sent with every export, `name=value,name2=value2` (an API key, say): never
    /// logged.
    pub otlp_headers: Option<String>,
    /// The `service.name` resource of the exported spans.
    pub service_name: String,
    /// The share of new traces sampled (0 to 1); a client's `traceparent` decision is followed.
    pub sample_ratio: f64,
}

impl Default for TracingConfig {
    fn default() -> Self {
        Self {
            access_log: false,
            otlp_endpoint: None,
            otlp_headers: None,
            service_name: "switchboard".to_owned(),
            sample_ratio: 1.0,
        }
    }
}

impl std::fmt::Debug for TracingConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TracingConfig")
            .field("access_log", &self.access_log)
            .field("otlp_endpoint", &self.otlp_endpoint.as_deref().map(|url| url.split(['?', '#']).next()))
            .field("otlp_headers", &self.otlp_headers.as_ref().map(|_| "[REDACTED]"))
            .field("service_name", &self.service_name)
            .field("sample_ratio", &self.sample_ratio)
            .finish()
    }
}

impl TracingConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(endpoint) = &self.otlp_endpoint {
            let usable = url::Url::parse(endpoint)
                .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.host_str().is_some());
            if !usable {
                return Err(ConfigError::invalid("tracing.otlp_endpoint", "must be an http(s) URL"));
            }
        }
        if self.otlp_headers.as_deref().is_some_and(|headers| self.headers_of(headers).is_none()) {
            return Err(ConfigError::invalid("tracing.otlp_headers", "must be `name=value` pairs separated by commas"));
        }
        if self.service_name.trim().is_empty() {
            return Err(ConfigError::invalid("tracing.service_name", "must not be empty"));
        }
        if !(0.0..=1.0).contains(&self.sample_ratio) {
            return Err(ConfigError::invalid("tracing.sample_ratio", "must be between 0 and 1"));
        }
        Ok(())
    }

    /// The export headers as name/value pairs (`None`: not well formed).
    pub fn otlp_header_pairs(&self) -> Option<Vec<(String, String)>> {
        self.otlp_headers.as_deref().map_or(Some(Vec::new()), |headers| self.headers_of(headers))
    }

    fn headers_of(&self, headers: &str) -> Option<Vec<(String, String)>> {
        headers
            .split(',')
            .filter(|pair| !pair.trim().is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=')?;
                let name = name.trim();
                let valid = http::HeaderName::from_bytes(name.as_bytes()).is_ok()
                    && http::HeaderValue::from_str(value.trim()).is_ok();
                valid.then(|| (name.to_ascii_lowercase(), value.trim().to_owned()))
            })
            .collect()
    }

    /// Where the spans are posted: the endpoint with `/v1/traces`, unless it ends so already.
    pub fn traces_url(&self) -> Option<String> {
        let endpoint = self.otlp_endpoint.as_deref()?.trim_end_matches('/');
        Some(if endpoint.ends_with("/v1/traces") { endpoint.to_owned() } else { format!("{endpoint}/v1/traces") })
    }
}
