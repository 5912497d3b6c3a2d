//! Probing an egress proxy (issue 18): open a tunnel through it to a provider's configured
//! upstream origin, do the TLS handshake when the origin is `https`, close it. No request is
//! sent and no account token is used. Implemented over the shared upstream transport by the
//! composition root, which knows each provider's origin and the connect-time address policy.

use async_trait::async_trait;

use gateway_core::domain::{EgressProxy, ProviderKind};

/// One phase of a probe that ran (`proxy_connect`, `proxy_auth`, `tunnel`, `tls`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbePhaseTime {
    pub phase: &'static str,
    pub millis: u64,
    pub ok: bool,
}

/// What a probe found; `message` never carries the proxy's user info.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyProbeOutcome {
    /// The upstream origin the tunnel went to (`https://host:port`).
    pub origin: String,
    pub reachable: bool,
    /// The first phase that failed.
    pub failed_phase: Option<&'static str>,
    pub message: Option<String>,
    pub phases: Vec<ProbePhaseTime>,
}

#[async_trait]
pub trait ProxyProbe: Send + Sync {
    /// Probes `proxy` towards `provider`'s upstream origin. A proxy whose stored URL cannot be
    /// opened or parsed is reported unreachable (phase `proxy_connect`), never probed directly.
    async fn probe(&self, provider: ProviderKind, proxy: &EgressProxy) -> ProxyProbeOutcome;
}
