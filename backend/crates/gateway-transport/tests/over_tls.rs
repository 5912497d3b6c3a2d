//! SSE, JSON, OAuth and WebSocket against the simulator's TLS listener: HTTP/2 by ALPN for
//! HTTP, HTTP/1.1 for the WebSocket upgrade, and HTTP/1.1 on plain `http://`.

use futures_util::{SinkExt, StreamExt};
use gateway_transport::websocket::{self, HandshakeError};
use gateway_transport::{Connector, HttpClient, HttpRequest, SendError, TlsRoots};
use http::{HeaderName, HeaderValue, Version};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::support::{client, codex_body, connector, sim};

fn bearer(token: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("Bearer {token}")).expect("header")
}

#[tokio::test]
async fn sse_streams_over_tls_and_http2() {
    let (sim, tokens) = sim().await;
    let client = client(&sim);
    let url = format!("{}/codex/responses", sim.tls_chatgpt_base_url());
    let request = HttpRequest::post(&url)
        .expect("url")
        .header(http::header::AUTHORIZATION, bearer(&tokens.access_token))
        .header(http::header::ACCEPT, HeaderValue::from_static("text/event-stream"))
        .json(&codex_body("hello"));
    let mut response = client.send(request, None).await.expect("answered");
    assert_eq!(response.status, 200);
    assert_eq!(response.version, Version::HTTP_2);
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await {
        body.extend_from_slice(&chunk.expect("chunk"));
    }
    let text = String::from_utf8(body).expect("utf-8");
    assert!(text.contains("event: response.created"), "{text}");
    assert!(text.contains("event: response.completed"), "{text}");
    let connections = sim.connections();
    assert_eq!(connections.len(), 1);
    assert!(connections[0].tls);
    assert_eq!(connections[0].alpn.as_deref(), Some("h2"));
    let recorded = sim.requests();
    assert_eq!(recorded.last().map(|r| r.account_id.as_deref()), Some(Some("acct")));
}

#[tokio::test]
async fn json_and_concurrent_requests_share_one_http2_connection() {
    let (sim, tokens) = sim().await;
    let client = client(&sim);
    let url = format!("{}/wham/usage", sim.tls_chatgpt_base_url());
    let get = || {
        let request =
            HttpRequest::get(&url).expect("url").header(http::header::AUTHORIZATION, bearer(&tokens.access_token));
        let client = client.clone();
        async move { client.send(request, None).await.expect("answered").bytes(1 << 20).await.expect("body") }
    };
    let first = get().await;
    let usage: serde_json::Value = serde_json::from_slice(&first).expect("json");
    assert!(usage.get("rate_limit").is_some() || usage.get("plan_type").is_some(), "{usage}");
    let (a, b) = tokio::join!(get(), get());
    assert!(!a.is_empty() && !b.is_empty());
    assert_eq!(sim.connections().len(), 1, "one multiplexed connection");
}

#[tokio::test]
async fn oauth_refresh_over_tls() {
    let (sim, tokens) = sim().await;
    let client = client(&sim);
    let url = format!("{}/oauth/token", sim.tls_oauth_issuer_url());
    let body = serde_json::json!({
        "client_id": sim.settings().openai_client_id,
        "grant_type": "refresh_token",
        "refresh_token": tokens.refresh_token,
    });
    let response = client.send(HttpRequest::post(&url).expect("url").json(&body), None).await.expect("answered");
    assert_eq!(response.status, 200);
    assert_eq!(response.version, Version::HTTP_2);
    let answer: serde_json::Value =
        serde_json::from_slice(&response.bytes(1 << 20).await.expect("body")).expect("json");
    assert!(answer["access_token"].as_str().is_some_and(|t| !t.is_empty()), "{answer}");
}

#[tokio::test]
async fn plain_http_uses_http1_and_reuses_the_connection() {
    let (sim, tokens) = sim().await;
    let client = client(&sim);
    let url = format!("{}/wham/usage", sim.chatgpt_base_url());
    for _ in 0..3 {
        let request =
            HttpRequest::get(&url).expect("url").header(http::header::AUTHORIZATION, bearer(&tokens.access_token));
        let response = client.send(request, None).await.expect("answered");
        assert_eq!(response.version, Version::HTTP_11);
        assert_eq!(response.status, 200);
        response.bytes(1 << 20).await.expect("body");
    }
    assert_eq!(sim.connections().len(), 1, "keep-alive reuse");
}

#[tokio::test]
async fn an_untrusted_certificate_is_not_sent_to() {
    let (sim, _) = sim().await;
    let roots = TlsRoots::new(None).expect("platform roots");
    let client = HttpClient::new(Connector::new(roots, std::time::Duration::from_secs(5)));
    let url = format!("{}/wham/usage", sim.tls_chatgpt_base_url());
    let failure = client.send(HttpRequest::get(&url).expect("url"), None).await.err().expect("refused");
    assert!(matches!(failure, SendError::TlsFailed(ref m) if m.contains("TLS")), "{failure:?}");
    assert!(sim.requests().is_empty());
}

#[tokio::test]
async fn websocket_over_tls_with_a_bounded_read_buffer() {
    let (sim, tokens) = sim().await;
    let url = format!("{}/codex/responses", sim.tls_chatgpt_base_url()).replacen("https://", "wss://", 1);
    let mut request = url.as_str().into_client_request().expect("request");
    let headers = request.headers_mut();
    headers.insert(http::header::AUTHORIZATION, bearer(&tokens.access_token));
    headers
        .insert(HeaderName::from_static("openai-beta"), HeaderValue::from_static(upstream_sim::CODEX_WEBSOCKET_BETA));
    let config = WebSocketConfig::default();
    assert_eq!(websocket::bounded(config).read_buffer_size, websocket::READ_BUFFER_BYTES);
    let (mut socket, response) = websocket::connect(&connector(&sim), request, None, config).await.expect("upgraded");
    assert_eq!(response.status(), 101);
    let mut create = codex_body("hi");
    create["type"] = serde_json::json!("response.create");
    socket.send(Message::text(create.to_string())).await.expect("sent");
    let mut types = Vec::new();
    while let Some(message) = socket.next().await {
        let Message::Text(text) = message.expect("frame") else { continue };
        let event: serde_json::Value = serde_json::from_str(&text).expect("json");
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        types.push(kind.clone());
        if kind == "response.completed" {
            break;
        }
    }
    assert!(types.iter().any(|t| t == "response.created"), "{types:?}");
    assert_eq!(types.last().map(String::as_str), Some("response.completed"));
    let connections = sim.connections();
    assert!(connections[0].tls);
    assert_eq!(connections[0].alpn, None, "the WebSocket connection offers no ALPN");
}

#[tokio::test]
async fn a_refused_upgrade_reports_its_status() {
    let (sim, _) = sim().await;
    let url = format!("{}/codex/responses", sim.tls_chatgpt_base_url()).replacen("https://", "wss://", 1);
    let request = url.as_str().into_client_request().expect("request");
    let refused = websocket::connect(&connector(&sim), request, None, WebSocketConfig::default()).await.err();
    assert!(matches!(&refused, Some(HandshakeError::Refused(response)) if response.status() == 401), "{refused:?}");
}

/// More streams than one HTTP/2 connection takes (`MAX_STREAMS_PER_H2`, 100) open another
/// connection instead of waiting for a stream to end: 250 long answers held open at once reach
/// their headers over three connections, and every one then completes.
#[tokio::test]
async fn streams_past_one_connections_limit_open_another_connection() {
    let (sim, tokens) = sim().await;
    let client = client(&sim);
    let url = format!("{}/codex/responses", sim.tls_chatgpt_base_url());
    let mut held = Vec::new();
    for _ in 0..250 {
        let request = HttpRequest::post(&url)
            .expect("url")
            .header(http::header::AUTHORIZATION, bearer(&tokens.access_token))
            .header(http::header::ACCEPT, HeaderValue::from_static("text/event-stream"))
            .json(&codex_body("held\nsim: events=40 delay_ms=200"));
        let response = tokio::time::timeout(std::time::Duration::from_secs(5), client.send(request, None))
            .await
            .expect("the headers come without waiting for another stream to end")
            .expect("answered");
        assert_eq!(response.version, Version::HTTP_2);
        held.push(response);
    }
    let connections = sim.connections();
    assert_eq!(connections.len(), 3, "100 streams per connection: {connections:?}");
    let bodies = futures_util::future::join_all(held.into_iter().map(|mut response| async move {
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await {
            body.extend_from_slice(&chunk.expect("chunk"));
        }
        String::from_utf8(body).expect("utf-8")
    }))
    .await;
    assert!(bodies.iter().all(|text| text.contains("event: response.completed")));
    // The slots are free again: the next request reuses the first connection.
    let request = HttpRequest::post(&url)
        .expect("url")
        .header(http::header::AUTHORIZATION, bearer(&tokens.access_token))
        .json(&codex_body("after"));
    client.send(request, None).await.expect("answered").bytes(1 << 20).await.expect("body");
    assert_eq!(sim.connections().len(), 3);
}

/// A burst of requests to an origin with no connection yet does not dial once per request:
/// while the first HTTP/2 connection is opened the others wait for it, up to the streams it
/// takes, so 250 requests sent at once open three connections, as one after the other would.
#[tokio::test]
async fn a_burst_of_requests_waits_for_the_connections_being_opened() {
    let (sim, tokens) = sim().await;
    let client = client(&sim);
    let url = format!("{}/codex/responses", sim.tls_chatgpt_base_url());
    let send = |_| {
        let request = HttpRequest::post(&url)
            .expect("url")
            .header(http::header::AUTHORIZATION, bearer(&tokens.access_token))
            .header(http::header::ACCEPT, HeaderValue::from_static("text/event-stream"))
            .json(&codex_body("burst\nsim: events=40 delay_ms=200"));
        let client = client.clone();
        async move { client.send(request, None).await.expect("answered") }
    };
    let held =
        tokio::time::timeout(std::time::Duration::from_secs(20), futures_util::future::join_all((0..250).map(send)))
            .await
            .expect("every request reaches its headers");
    assert!(held.iter().all(|response| response.version == Version::HTTP_2));
    let connections = sim.connections();
    assert_eq!(connections.len(), 3, "100 streams per connection: {connections:?}");
}
