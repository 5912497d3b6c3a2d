//! The egress proxy probe of the admin API and the command line (decision 0246) over the shared
//! upstream transport: per provider, a connector with that provider's TLS roots (its extra CA)
//! and the connect-time address policy of proxies (decision 0244), and the origin of its
//! configured upstream (`providers.openai.backend_url`, `providers.xai.inference_url`).

use std::time::Duration;

use async_trait::async_trait;
use gateway_admin::ports::{ProbePhaseTime, ProxyProbe, ProxyProbeOutcome};
use gateway_core::domain::{EgressProxy, ProviderKind};
use gateway_transport::{Connector, ProbeReport, ProxyUrl, Target, TlsRoots};

use crate::config::Config;

use super::StartError;

/// How long a probe may take in all.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

struct Route {
    provider: ProviderKind,
    connector: Connector,
    target: Target,
    origin: String,
}

pub struct TransportProxyProbe {
    routes: Vec<Route>,
}

fn route(
    config: &Config,
    provider: ProviderKind,
    base_url: &str,
    extra_ca: Option<&str>,
    key: &str,
) -> Result<Route, StartError> {
    let invalid = |reason: String| StartError::Config(gateway_host::ConfigError::invalid(key, &reason));
    let uri: axum::http::Uri = base_url.parse().map_err(|_| invalid("not a valid URL".to_owned()))?;
    let target = Target::from_uri(&uri).map_err(|e| invalid(e.to_string()))?;
    let roots = TlsRoots::new(extra_ca.map(std::path::Path::new)).map_err(|e| invalid(e.to_string()))?;
    let connector = Connector::new(roots, PROBE_TIMEOUT).with_proxy_addresses(super::outbound::proxy_addresses(config));
    let scheme = if target.tls { "https" } else { "http" };
    let origin = format!("{scheme}://{}", target.authority());
    Ok(Route { provider, connector, target, origin })
}

impl TransportProxyProbe {
    pub fn new(config: &Config) -> Result<Self, StartError> {
        let (openai, xai) = (&config.providers.openai, &config.providers.xai);
        Ok(Self {
            routes: vec![
                route(
                    config,
                    ProviderKind::Openai,
                    &openai.backend_url,
                    openai.extra_ca_file.as_deref(),
                    "providers.openai.backend_url",
                )?,
                route(
                    config,
                    ProviderKind::Xai,
                    &xai.inference_url,
                    xai.extra_ca_file.as_deref(),
                    "providers.xai.inference_url",
                )?,
            ],
        })
    }
}

fn outcome(origin: &str, report: ProbeReport) -> ProxyProbeOutcome {
    ProxyProbeOutcome {
        origin: origin.to_owned(),
        reachable: report.reachable,
        failed_phase: report.failed_phase.map(|p| p.as_str()),
        message: report.message,
        phases: report
            .phases
            .iter()
            .map(|p| ProbePhaseTime {
                phase: p.phase.as_str(),
                millis: u64::try_from(p.elapsed.as_millis()).unwrap_or(u64::MAX),
                ok: p.ok,
            })
            .collect(),
    }
}

#[async_trait]
impl ProxyProbe for TransportProxyProbe {
    async fn probe(&self, provider: ProviderKind, proxy: &EgressProxy) -> ProxyProbeOutcome {
        let unusable = |origin: &str, message: &str| ProxyProbeOutcome {
            origin: origin.to_owned(),
            reachable: false,
            failed_phase: Some("proxy_connect"),
            message: Some(message.to_owned()),
            phases: Vec::new(),
        };
        let Some(route) = self.routes.iter().find(|r| r.provider == provider) else {
            return unusable("", "no upstream origin is configured for this provider");
        };
        let Some(url) = proxy.expose_url() else {
            return unusable(&route.origin, "the stored proxy URL cannot be opened with the configured keys");
        };
        let Ok(parsed) = ProxyUrl::parse(url) else {
            return unusable(&route.origin, "the proxy URL is not usable");
        };
        outcome(&route.origin, route.connector.probe(&route.target, &parsed).await)
    }
}
