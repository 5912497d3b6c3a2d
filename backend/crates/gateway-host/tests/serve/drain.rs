//! The drain over real sockets: a slow request finishes after the signal, new connections are
//! refused, and the deadline cuts what is still open.

use std::time::Duration;

use axum::Router;
use axum::routing::get;
use gateway_host::{ConnectionLimits, ServeOutcome, Server, Shutdown};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// A router whose `/slow` answers after `delay` and reports when the handler started.
fn slow_router(delay: Duration, started: tokio::sync::mpsc::Sender<()>) -> Router {
    Router::new().route(
        "/slow",
        get(move || {
            let started = started.clone();
            async move {
                let _ = started.send(()).await;
                tokio::time::sleep(delay).await;
                "done"
            }
        }),
    )
}

async fn request(addr: std::net::SocketAddr, path: &str) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes()).await?;
    let mut response = String::new();
    stream.read_to_string(&mut response).await?;
    Ok(response)
}

async fn start(
    delay: Duration,
    drain: Duration,
) -> (std::net::SocketAddr, Shutdown, tokio::sync::mpsc::Receiver<()>, oneshot::Receiver<ServeOutcome>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (started_tx, started_rx) = tokio::sync::mpsc::channel(8);
    let shutdown = Shutdown::new(drain);
    let (done_tx, done_rx) = oneshot::channel();
    let router = slow_router(delay, started_tx);
    let server_shutdown = shutdown.clone();
    tokio::spawn(async move {
        let _ = done_tx.send(Server::new(router, ConnectionLimits::default()).serve(listener, server_shutdown).await);
    });
    (addr, shutdown, started_rx, done_rx)
}

#[tokio::test]
async fn an_in_flight_request_completes_after_the_signal_and_new_connections_are_refused() {
    let (addr, shutdown, mut started, done) = start(Duration::from_millis(300), Duration::from_secs(10)).await;
    let slow = tokio::spawn(request(addr, "/slow"));
    started.recv().await.expect("the handler started");

    shutdown.trigger();
    // The listener closes promptly once the signal is seen.
    test_support::wait_until("the listener to close", Duration::from_secs(5), || async {
        TcpStream::connect(addr).await.is_err().then_some(())
    })
    .await
    .expect("listener closed");

    let response = slow.await.expect("task").expect("the slow request completes");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.ends_with("done"), "{response}");
    assert_eq!(done.await.expect("serve returned"), ServeOutcome::Drained);
}

#[tokio::test]
async fn a_request_still_open_at_the_deadline_is_cut() {
    let (addr, shutdown, mut started, done) = start(Duration::from_secs(3600), Duration::from_millis(200)).await;
    let slow = tokio::spawn(request(addr, "/slow"));
    started.recv().await.expect("the handler started");

    shutdown.trigger();
    let outcome = tokio::time::timeout(Duration::from_secs(10), done).await.expect("serve ends by the deadline");
    assert_eq!(outcome.expect("serve returned"), ServeOutcome::ForceClosed { connections: 1 });
    let response =
        tokio::time::timeout(Duration::from_secs(5), slow).await.expect("client sees the cut").expect("task");
    assert!(response.map(|r| !r.contains("done")).unwrap_or(true), "the cut request must not complete");
}

#[tokio::test]
async fn idle_keep_alive_connections_do_not_hold_the_drain() {
    let (addr, shutdown, _started, done) = start(Duration::from_millis(1), Duration::from_secs(30)).await;
    let mut idle = TcpStream::connect(addr).await.expect("connect");
    idle.write_all(b"GET /missing HTTP/1.1\r\nHost: x\r\n\r\n").await.expect("write");
    let mut buf = [0u8; 512];
    let n = idle.read(&mut buf).await.expect("read");
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 404"));

    shutdown.trigger();
    let outcome = tokio::time::timeout(Duration::from_secs(5), done).await.expect("drain does not wait for idle");
    assert_eq!(outcome.expect("serve returned"), ServeOutcome::Drained);
}
