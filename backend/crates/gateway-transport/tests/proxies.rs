//! Requests through egress proxies: HTTP CONNECT and SOCKS5 (with credentials), pooled per
//! route, and the failure of a dead or refusing proxy as `ProxyFailed` (nothing sent).

use gateway_transport::{HttpRequest, ProxyUrl, SendError};
use http::HeaderValue;

use crate::support::proxy::TestProxy;
use crate::support::{client, sim};

async fn usage_through(proxy: &ProxyUrl) -> Result<u16, SendError> {
    let (sim, tokens) = sim().await;
    let client = client(&sim);
    let url = format!("{}/wham/usage", sim.tls_chatgpt_base_url());
    let auth = HeaderValue::from_str(&format!("Bearer {}", tokens.access_token)).expect("header");
    let request = HttpRequest::get(&url).expect("url").header(http::header::AUTHORIZATION, auth);
    let response = client.send(request, Some(proxy)).await?;
    assert_eq!(response.version, http::Version::HTTP_2, "TLS and ALPN run inside the tunnel");
    Ok(response.status.as_u16())
}

#[tokio::test]
async fn an_http_connect_proxy_with_credentials_carries_tls() {
    let proxy = TestProxy::http_connect(Some(("user", "p@ss"))).await;
    let url = ProxyUrl::parse(&proxy.url("http", Some("user:p%40ss"))).expect("proxy url");
    assert_eq!(usage_through(&url).await, Ok(200));
    assert_eq!(proxy.tunnels(), 1);
}

#[tokio::test]
async fn a_socks5_proxy_with_credentials_carries_tls() {
    let proxy = TestProxy::socks5(Some(("user", "secret"))).await;
    let url = ProxyUrl::parse(&proxy.url("socks5", Some("user:secret"))).expect("proxy url");
    assert_eq!(usage_through(&url).await, Ok(200));
    assert_eq!(proxy.tunnels(), 1);
}

#[tokio::test]
async fn a_socks5_proxy_without_credentials() {
    let proxy = TestProxy::socks5(None).await;
    let url = ProxyUrl::parse(&proxy.url("socks5", None)).expect("proxy url");
    assert_eq!(usage_through(&url).await, Ok(200));
    assert_eq!(proxy.tunnels(), 1);
}

#[tokio::test]
async fn refused_proxy_credentials_are_a_proxy_failure() {
    let proxy = TestProxy::http_connect(Some(("user", "right"))).await;
    let url = ProxyUrl::parse(&proxy.url("http", Some("user:wrong"))).expect("proxy url");
    let failure = usage_through(&url).await.expect_err("refused");
    assert!(matches!(failure, SendError::ProxyFailed(ref m) if m.contains("407")), "{failure:?}");
    assert!(!format!("{failure:?}").contains("wrong"), "the password stays out of errors");
    let socks = TestProxy::socks5(Some(("user", "right"))).await;
    let url = ProxyUrl::parse(&socks.url("socks5", Some("user:wrong"))).expect("proxy url");
    assert!(matches!(usage_through(&url).await, Err(SendError::ProxyFailed(_))));
}

#[tokio::test]
async fn a_dead_proxy_is_a_proxy_failure_and_nothing_is_sent() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    for scheme in ["http", "socks5"] {
        let url = ProxyUrl::parse(&format!("{scheme}://127.0.0.1:{port}")).expect("proxy url");
        let failure = usage_through(&url).await.expect_err("no proxy there");
        assert!(matches!(failure, SendError::ProxyFailed(_)), "{failure:?}");
        assert!(failure.is_not_sent());
    }
}

#[tokio::test]
async fn connections_are_pooled_per_route() {
    let (sim, tokens) = sim().await;
    let client = client(&sim);
    let proxy = TestProxy::http_connect(None).await;
    let proxy_url = ProxyUrl::parse(&proxy.url("http", None)).expect("proxy url");
    let url = format!("{}/wham/usage", sim.tls_chatgpt_base_url());
    let auth = HeaderValue::from_str(&format!("Bearer {}", tokens.access_token)).expect("header");
    for route in [None, Some(&proxy_url), None, Some(&proxy_url)] {
        let request = HttpRequest::get(&url).expect("url").header(http::header::AUTHORIZATION, auth.clone());
        client.send(request, route).await.expect("answered").bytes(1 << 20).await.expect("body");
    }
    assert_eq!(proxy.tunnels(), 1, "the proxied route reuses its own connection");
    assert_eq!(sim.connections().len(), 2, "one direct, one through the proxy");
}
