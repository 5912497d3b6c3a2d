//! The egress proxy health probe: a tunnel through the proxy to the simulator's TLS origin and
//! the handshake inside it, each phase timed, no request sent; and each way it can fail, named
//! by phase, without the proxy's credentials in the answer.

use std::time::Duration;

use gateway_transport::{Connector, ProbePhase, ProbeReport, ProxyUrl, Target, TlsRoots};

use crate::support::proxy::TestProxy;
use crate::support::{connector, sim};

fn tls_origin(sim: &upstream_sim::SimHandle) -> Target {
    let uri: http::Uri = sim.tls_chatgpt_base_url().parse().expect("uri");
    Target::from_uri(&uri).expect("target")
}

fn phases(report: &ProbeReport) -> Vec<(ProbePhase, bool)> {
    report.phases.iter().map(|p| (p.phase, p.ok)).collect()
}

fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[tokio::test]
async fn an_http_connect_proxy_with_credentials_reaches_the_tls_origin() {
    let (sim, _) = sim().await;
    let proxy = TestProxy::http_connect(Some(("user", "p@ss"))).await;
    let url = ProxyUrl::parse(&proxy.url("http", Some("user:p%40ss"))).expect("proxy url");
    let report = connector(&sim).probe(&tls_origin(&sim), &url).await;
    assert!(report.reachable, "{report:?}");
    assert_eq!(report.failed_phase, None);
    let expected = [(ProbePhase::ProxyConnect, true), (ProbePhase::Tunnel, true), (ProbePhase::Tls, true)];
    assert_eq!(phases(&report), expected);
    assert_eq!(proxy.tunnels(), 1);
    // The simulator logs a connection once its side of the handshake is done.
    let logged = || async { (!sim.connections().is_empty()).then(|| sim.connections()) };
    let connections = test_support::wait_until("the simulator to log the connection", Duration::from_secs(5), logged)
        .await
        .expect("logged");
    assert_eq!(connections.len(), 1);
    assert!(connections[0].tls, "the handshake ran inside the tunnel");
    assert!(sim.requests().is_empty(), "a probe sends no request");
}

#[tokio::test]
async fn a_socks5_proxy_with_credentials_times_its_authentication() {
    let (sim, _) = sim().await;
    let proxy = TestProxy::socks5(Some(("user", "secret"))).await;
    let url = ProxyUrl::parse(&proxy.url("socks5", Some("user:secret"))).expect("proxy url");
    let report = connector(&sim).probe(&tls_origin(&sim), &url).await;
    assert!(report.reachable, "{report:?}");
    let expected = [
        (ProbePhase::ProxyConnect, true),
        (ProbePhase::ProxyAuth, true),
        (ProbePhase::Tunnel, true),
        (ProbePhase::Tls, true),
    ];
    assert_eq!(phases(&report), expected);
    assert!(sim.requests().is_empty());
}

#[tokio::test]
async fn a_dead_proxy_fails_at_connecting_to_it() {
    let (sim, _) = sim().await;
    for scheme in ["http", "socks5"] {
        let url = ProxyUrl::parse(&format!("{scheme}://127.0.0.1:{}", closed_port())).expect("proxy url");
        let report = connector(&sim).probe(&tls_origin(&sim), &url).await;
        assert!(!report.reachable);
        assert_eq!(report.failed_phase, Some(ProbePhase::ProxyConnect), "{report:?}");
        assert_eq!(phases(&report), [(ProbePhase::ProxyConnect, false)]);
    }
    assert!(sim.connections().is_empty());
}

#[tokio::test]
async fn refused_credentials_fail_as_proxy_auth_without_showing_them() {
    let (sim, _) = sim().await;
    let http = TestProxy::http_connect(Some(("user", "right"))).await;
    let socks = TestProxy::socks5(Some(("user", "right"))).await;
    for url in [http.url("http", Some("user:wrongpass")), socks.url("socks5", Some("user:wrongpass"))] {
        let url = ProxyUrl::parse(&url).expect("proxy url");
        let report = connector(&sim).probe(&tls_origin(&sim), &url).await;
        assert!(!report.reachable);
        assert_eq!(report.failed_phase, Some(ProbePhase::ProxyAuth), "{report:?}");
        assert_eq!(report.phases.last().map(|p| (p.phase, p.ok)), Some((ProbePhase::ProxyAuth, false)));
        assert!(!format!("{report:?}").contains("wrongpass"), "{report:?}");
    }
    assert!(sim.connections().is_empty());
}

#[tokio::test]
async fn an_unreachable_origin_fails_the_tunnel() {
    let (sim, _) = sim().await;
    let proxy = TestProxy::http_connect(None).await;
    let url = ProxyUrl::parse(&proxy.url("http", None)).expect("proxy url");
    let origin = Target { host: "127.0.0.1".to_owned(), port: closed_port(), tls: true };
    let report = connector(&sim).probe(&origin, &url).await;
    assert_eq!(report.failed_phase, Some(ProbePhase::Tunnel), "{report:?}");
    assert_eq!(phases(&report), [(ProbePhase::ProxyConnect, true), (ProbePhase::Tunnel, false)]);
}

#[tokio::test]
async fn an_untrusted_origin_certificate_fails_the_tls_phase() {
    let (sim, _) = sim().await;
    let proxy = TestProxy::socks5(None).await;
    let url = ProxyUrl::parse(&proxy.url("socks5", None)).expect("proxy url");
    let untrusting = Connector::new(TlsRoots::new(None).expect("roots"), Duration::from_secs(5));
    let report = untrusting.probe(&tls_origin(&sim), &url).await;
    assert_eq!(report.failed_phase, Some(ProbePhase::Tls), "{report:?}");
    assert_eq!(report.phases.iter().filter(|p| p.ok).count(), 2, "connect and tunnel (SOCKS5 without auth)");
    assert_eq!(proxy.tunnels(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_silent_proxy_times_out_in_the_tunnel_phase() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let mut holder = tokio::task::JoinSet::new();
    holder.spawn(async move {
        let (socket, _) = listener.accept().await.expect("accept");
        tokio::time::sleep(Duration::from_secs(3600)).await;
        drop(socket);
    });
    let roots = TlsRoots::new(None).expect("roots");
    let connector = Connector::new(roots, Duration::from_secs(5));
    let url = ProxyUrl::parse(&format!("http://127.0.0.1:{port}")).expect("proxy url");
    let origin = Target { host: "upstream.example".to_owned(), port: 443, tls: true };
    let started = tokio::time::Instant::now();
    let report = connector.probe(&origin, &url).await;
    assert_eq!(report.failed_phase, Some(ProbePhase::Tunnel), "{report:?}");
    assert!(report.message.as_deref().is_some_and(|m| m.contains("timed out")), "{report:?}");
    assert!(started.elapsed() >= Duration::from_secs(5), "the connect timeout bounds the probe");
    holder.abort_all();
}
