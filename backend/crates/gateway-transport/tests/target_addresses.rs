//! A direct connection's addresses pass the connector's target check (decision 0341): the SSRF
//! guard's address rules applied where the socket opens, for callers that reach addresses an
//! admin typed (alert webhooks). A refused address is never connected to and fails as
//! [`SendError::Refused`] with nothing sent; an allowed one is connected to as before.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use gateway_transport::{AddressCheck, Connector, HttpClient, HttpRequest, SendError, TlsRoots};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn refuse_loopback() -> AddressCheck {
    AddressCheck::new(|ip: IpAddr| if ip.is_loopback() { Err("loopback".to_owned()) } else { Ok(()) })
}

/// A plain HTTP/1.1 server answering 204 to everything; counts the connections it accepted.
async fn counting_server() -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buffer = [0u8; 4096];
                let _ = socket.read(&mut buffer).await;
                let _ = socket.write_all(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n").await;
            });
        }
    });
    (port, accepted)
}

fn connector() -> Connector {
    Connector::new(TlsRoots::new(None).expect("roots"), std::time::Duration::from_secs(5))
}

#[tokio::test]
async fn a_name_resolving_to_a_refused_address_is_not_connected_to() {
    let (port, accepted) = counting_server().await;
    let client = HttpClient::new(connector().with_target_addresses(refuse_loopback()));
    let request = HttpRequest::post(&format!("http://localhost:{port}/hook")).expect("url");
    let Err(error) = client.send(request, None).await else { panic!("a refused address was connected to") };
    assert!(matches!(&error, SendError::Refused(m) if m.contains("loopback")), "{error:?}");
    assert!(error.is_not_sent());
    assert_eq!(accepted.load(Ordering::SeqCst), 0, "the server never saw a connection");
}

#[tokio::test]
async fn an_ip_literal_refused_by_the_check_is_not_connected_to() {
    let (port, accepted) = counting_server().await;
    let client = HttpClient::new(connector().with_target_addresses(refuse_loopback()));
    let request = HttpRequest::post(&format!("http://127.0.0.1:{port}/hook")).expect("url");
    let Err(error) = client.send(request, None).await else { panic!("a refused literal was connected to") };
    assert!(matches!(&error, SendError::Refused(_)), "{error:?}");
    assert_eq!(accepted.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_allowed_address_is_connected_to() {
    let (port, accepted) = counting_server().await;
    let allow = AddressCheck::new(|_| Ok(()));
    let client = HttpClient::new(connector().with_target_addresses(allow));
    let request = HttpRequest::post(&format!("http://127.0.0.1:{port}/hook")).expect("url");
    let response = client.send(request, None).await.expect("sent");
    assert_eq!(response.status.as_u16(), 204);
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
}
