//! The proxy host's addresses are checked again when connecting (decision 0244): a name that
//! resolves to a refused address at connect time (here `localhost` under a policy that refuses
//! loopback) is not connected to, and fails as the proxy's fault with nothing sent.

use std::net::IpAddr;

use gateway_transport::{AddressCheck, HttpClient, HttpRequest, ProxyUrl, SendError};

use crate::support::proxy::TestProxy;
use crate::support::{connector, sim};

fn refuse_loopback() -> AddressCheck {
    AddressCheck::new(|ip: IpAddr| if ip.is_loopback() { Err("loopback".to_owned()) } else { Ok(()) })
}

#[tokio::test]
async fn a_proxy_name_resolving_to_a_refused_address_is_not_connected_to() {
    let (sim, _) = sim().await;
    let proxy = TestProxy::http_connect(None).await;
    let url = ProxyUrl::parse(&format!("http://localhost:{}", proxy.port)).expect("proxy url");
    let client = HttpClient::new(connector(&sim).with_proxy_addresses(refuse_loopback()));
    let request = HttpRequest::get(&format!("{}/wham/usage", sim.tls_chatgpt_base_url())).expect("url");
    let Err(error) = client.send(request, Some(&url)).await else { panic!("a refused proxy address was used") };
    assert!(matches!(&error, SendError::ProxyFailed(m) if m.contains("loopback")), "{error:?}");
    assert!(error.is_not_sent());
    assert_eq!(proxy.tunnels(), 0, "the proxy never saw a connection");
    assert!(sim.requests().is_empty());
}

#[tokio::test]
async fn an_allowed_proxy_address_is_connected_to() {
    let (sim, tokens) = sim().await;
    let proxy = TestProxy::http_connect(None).await;
    let url = ProxyUrl::parse(&format!("http://localhost:{}", proxy.port)).expect("proxy url");
    let allow = AddressCheck::new(|_| Ok(()));
    let client = HttpClient::new(connector(&sim).with_proxy_addresses(allow));
    let auth = http::HeaderValue::from_str(&format!("Bearer {}", tokens.access_token)).expect("header");
    let request = HttpRequest::get(&format!("{}/wham/usage", sim.tls_chatgpt_base_url()))
        .expect("url")
        .header(http::header::AUTHORIZATION, auth);
    let response = client.send(request, Some(&url)).await.expect("sent");
    assert_eq!(response.status.as_u16(), 200);
    assert_eq!(proxy.tunnels(), 1);
}
