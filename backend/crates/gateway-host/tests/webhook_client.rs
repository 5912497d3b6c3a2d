//! The webhook transport over the one outbound stack (decision 0341): a host whose address the
//! connector's SSRF check refuses is never connected to and comes back as `Refused`; an
//! allowed one is posted to with the request's headers and body, its status returned.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gateway_core::alerts::{WebhookError, WebhookRequest, WebhookTransport};
use gateway_host::webhook_client::HttpWebhookTransport;
use gateway_transport::{AddressCheck, Connector, HttpClient, TlsRoots};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A one-shot-per-connection HTTP/1.1 server answering 202; keeps what each connection sent.
async fn receiver() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let kept = kept.clone();
            tokio::spawn(async move {
                let mut buffer = vec![0u8; 8192];
                let read = socket.read(&mut buffer).await.unwrap_or(0);
                kept.lock().expect("lock").push(String::from_utf8_lossy(&buffer[..read]).into_owned());
                let _ = socket.write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 2\r\n\r\nok").await;
            });
        }
    });
    (port, seen)
}

fn transport(check: AddressCheck) -> HttpWebhookTransport {
    let connector = Connector::new(TlsRoots::new(None).expect("roots"), Duration::from_secs(5));
    HttpWebhookTransport::new(HttpClient::new(connector.with_target_addresses(check)))
}

fn request(port: u16) -> WebhookRequest {
    WebhookRequest {
        url: format!("http://localhost:{port}/hook?token=secret-in-query"),
        headers: vec![("x-switchboard-signature".to_owned(), "sha256=abc".to_owned())],
        body: br#"{"kind":"account_banned"}"#.to_vec(),
        timeout: Duration::from_secs(5),
    }
}

#[tokio::test]
async fn a_host_resolving_to_a_refused_address_is_not_posted_to() {
    let (port, seen) = receiver().await;
    let refuse_loopback =
        AddressCheck::new(|ip: IpAddr| if ip.is_loopback() { Err("loopback".to_owned()) } else { Ok(()) });
    let outcome = transport(refuse_loopback).post(request(port)).await;
    assert!(matches!(outcome, Err(WebhookError::Refused)), "{outcome:?}");
    assert!(seen.lock().expect("lock").is_empty(), "the receiver saw a connection");
}

#[tokio::test]
async fn an_allowed_host_gets_the_headers_and_body_and_its_status_is_returned() {
    let (port, seen) = receiver().await;
    let outcome = transport(AddressCheck::allow_all()).post(request(port)).await;
    assert_eq!(outcome.expect("posted"), 202);
    let seen = seen.lock().expect("lock");
    let sent = seen.first().expect("one request");
    assert!(sent.starts_with("POST /hook?token=secret-in-query HTTP/1.1"), "{sent}");
    assert!(sent.contains("x-switchboard-signature: sha256=abc"), "{sent}");
    assert!(sent.contains("user-agent: switchboard/"), "{sent}");
    assert!(sent.ends_with(r#"{"kind":"account_banned"}"#), "{sent}");
}

#[tokio::test]
async fn an_unreachable_host_is_unreachable_and_the_message_has_no_query() {
    let port = test_support::free_port();
    let outcome = transport(AddressCheck::allow_all()).post(request(port)).await;
    match outcome {
        Err(WebhookError::Unreachable(message)) => assert!(!message.contains("secret-in-query"), "{message}"),
        other => panic!("expected unreachable, got {other:?}"),
    }
}
