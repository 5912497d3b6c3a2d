//! The health probe of an egress proxy (issue 18): a tunnel through the proxy to an upstream
//! origin, the TLS handshake when the origin is `https`, then the connection is closed. No
//! request is sent. Each phase is timed; the first that fails is named.
//!
//! Phases: `proxy_connect` (TCP to the proxy, its addresses checked by the connector's
//! [`AddressCheck`](crate::AddressCheck)), `proxy_auth` (SOCKS5 with user info: the
//! username/password exchange; HTTP CONNECT sends the credentials with the CONNECT, so there a
//! `407` answer is reported as `proxy_auth` failing and a success as `tunnel`), `tunnel` (the
//! proxy opens the connection to the origin), `tls` (the handshake with the origin inside the
//! tunnel). The whole probe runs under the connector's connect timeout; a timeout fails the
//! phase that was running.

use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::connect::{Alpn, Connector, Target, as_proxy_failure, http_connect, socks5};
use crate::error::SendError;
use crate::proxy::{ProxyKind, ProxyUrl};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProbePhase {
    ProxyConnect,
    ProxyAuth,
    Tunnel,
    Tls,
}

impl ProbePhase {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ProxyConnect => "proxy_connect",
            Self::ProxyAuth => "proxy_auth",
            Self::Tunnel => "tunnel",
            Self::Tls => "tls",
        }
    }
}

/// One phase that ran: how long it took and whether it succeeded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseTiming {
    pub phase: ProbePhase,
    pub elapsed: Duration,
    pub ok: bool,
}

/// What a probe found. `message` never holds the proxy's user info.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeReport {
    pub reachable: bool,
    pub failed_phase: Option<ProbePhase>,
    pub message: Option<String>,
    pub phases: Vec<PhaseTiming>,
}

/// The phases run so far, under one deadline.
struct Run {
    deadline: Instant,
    phases: Vec<PhaseTiming>,
}

impl Run {
    async fn phase<T>(
        &mut self,
        phase: ProbePhase,
        work: impl Future<Output = Result<T, SendError>>,
    ) -> Result<T, (ProbePhase, String)> {
        let started = Instant::now();
        let outcome = match tokio::time::timeout_at(self.deadline, work).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err(format!("{} timed out", phase.as_str())),
        };
        self.phases.push(PhaseTiming { phase, elapsed: started.elapsed(), ok: outcome.is_ok() });
        outcome.map_err(|message| (phase, message))
    }
}

impl Connector {
    /// Probes `proxy` by opening a tunnel to `target` (and TLS when it is `https`), then closes it.
    pub async fn probe(&self, target: &Target, proxy: &ProxyUrl) -> ProbeReport {
        let mut run = Run { deadline: Instant::now() + self.connect_timeout(), phases: Vec::new() };
        let outcome = self.probe_phases(&mut run, target, proxy).await;
        let (failed_phase, message) = match outcome {
            Ok(()) => (None, None),
            Err((phase, message)) => (Some(phase), Some(message)),
        };
        ProbeReport { reachable: failed_phase.is_none(), failed_phase, message, phases: run.phases }
    }

    async fn probe_phases(&self, run: &mut Run, target: &Target, proxy: &ProxyUrl) -> Result<(), (ProbePhase, String)> {
        let connecting = async { self.proxy_connect(proxy).await.map_err(|e| as_proxy_failure(e, proxy)) };
        let tcp = run.phase(ProbePhase::ProxyConnect, connecting).await?;
        let tcp = match proxy.kind() {
            ProxyKind::Socks5 if proxy.has_credentials() => {
                let tcp = run.phase(ProbePhase::ProxyAuth, socks5::authenticate(tcp, proxy)).await?;
                run.phase(ProbePhase::Tunnel, socks5::request(tcp, target, proxy)).await?
            }
            // Without credentials the greeting is part of opening the tunnel.
            ProxyKind::Socks5 => run.phase(ProbePhase::Tunnel, socks5::tunnel(tcp, target, proxy)).await?,
            ProxyKind::HttpConnect => http_tunnel(run, tcp, target, proxy).await?,
        };
        if target.tls {
            let mut tls = run.phase(ProbePhase::Tls, self.tls_handshake(tcp, target, Alpn::Http)).await?;
            let _ = tls.shutdown().await;
        } else {
            let mut tcp = tcp;
            let _ = tcp.shutdown().await;
        }
        Ok(())
    }
}

/// The CONNECT exchange, timed as `tunnel`; a 407 names `proxy_auth` as the failed phase.
async fn http_tunnel(
    run: &mut Run,
    tcp: TcpStream,
    target: &Target,
    proxy: &ProxyUrl,
) -> Result<TcpStream, (ProbePhase, String)> {
    let mut auth_refused = false;
    let exchange = async {
        http_connect::exchange(tcp, target, proxy).await.map_err(|refused| {
            auth_refused = refused.auth;
            refused.error
        })
    };
    let result = run.phase(ProbePhase::Tunnel, exchange).await;
    match result {
        Err((_, message)) if auth_refused => {
            if let Some(last) = run.phases.last_mut() {
                last.phase = ProbePhase::ProxyAuth;
            }
            Err((ProbePhase::ProxyAuth, message))
        }
        other => other,
    }
}
