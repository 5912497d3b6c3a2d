use std::sync::Arc;

use rustls::HandshakeKind;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use upstream_sim::{SettingsPatch, SimHandle, TlsFault};

use crate::support::{client, sim};

/// A rustls client trusting only the simulator's test CA, with its session cache (so a
/// resumption would be tried).
fn connector(sim: &SimHandle) -> TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(sim.ca().der().clone()).expect("the test CA is a root");
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    TlsConnector::from(Arc::new(config))
}

/// A handshake and one request on it (so the client reads the server's session tickets);
/// whether the handshake resumed a session.
async fn handshake(sim: &SimHandle, connector: &TlsConnector) -> std::io::Result<HandshakeKind> {
    let tcp = TcpStream::connect(sim.tls_addr()).await?;
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
    let mut tls = connector.connect(name, tcp).await?;
    let kind = tls.get_ref().1.handshake_kind().expect("handshake done");
    tls.write_all(b"GET /_sim/health HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n").await?;
    let mut answer = Vec::new();
    tls.read_to_end(&mut answer).await?;
    assert!(answer.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&answer));
    Ok(kind)
}

/// While `untrusted`, the listener presents a certificate of another CA and resumes no session
/// (a resumed session would skip the certificate).
#[tokio::test]
async fn tls_fault_untrusted_presents_a_certificate_of_another_ca_until_cleared() {
    let sim = sim().await;
    let connector = connector(&sim);
    assert_eq!(handshake(&sim, &connector).await.expect("the test CA's certificate verifies"), HandshakeKind::Full);
    assert_eq!(handshake(&sim, &connector).await.expect("again"), HandshakeKind::Resumed, "the client resumes");

    let settings = sim.update_settings(SettingsPatch { tls_fault: Some(TlsFault::Untrusted), ..Default::default() });
    assert_eq!(settings.tls_fault, TlsFault::Untrusted);
    for attempt in 0..2 {
        let error = handshake(&sim, &connector).await.expect_err("verification fails");
        let text = format!("{error:?}");
        assert!(text.contains("UnknownIssuer"), "attempt {attempt}: {text}");
    }

    sim.update_settings(SettingsPatch { tls_fault: Some(TlsFault::None), ..Default::default() });
    handshake(&sim, &connector).await.expect("the normal certificate again");
    sim.shutdown().await;
}

#[tokio::test]
async fn tls_fault_through_the_control_api() {
    let sim = sim().await;
    let url = format!("{}/_sim/settings", sim.base_url());
    let patched: Value = client()
        .patch(&url)
        .json(&json!({"tls_fault": "untrusted"}))
        .send()
        .await
        .expect("answer")
        .json()
        .await
        .expect("json");
    assert_eq!(patched["tls_fault"], "untrusted");
    assert!(handshake(&sim, &connector(&sim)).await.is_err());
    let bad = client().patch(&url).json(&json!({"tls_fault": "expired"})).send().await.expect("answer");
    assert_eq!(bad.status(), 400);
    let cleared: Value = client()
        .patch(&url)
        .json(&json!({"tls_fault": "none"}))
        .send()
        .await
        .expect("answer")
        .json()
        .await
        .expect("json");
    assert_eq!(cleared["tls_fault"], "none");
    handshake(&sim, &connector(&sim)).await.expect("verifies again");
    sim.shutdown().await;
}
