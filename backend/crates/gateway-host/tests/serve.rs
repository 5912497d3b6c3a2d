//! The HTTP server over real sockets: the connection cap here, the drain in `drain`, the
//! deadlines of one connection in `connection`.
//!
//! Deadline tests run on the real clock with deadlines of about a second. tokio's paused clock
//! was tried: every timer involved reads it, but it jumps to the next pending timer whenever the
//! runtime is idle, also while a FIN or a segment is still on its way through the loopback
//! device, so a close seen "at 5 s" was sometimes seen at the next unrelated deadline. A close
//! is asserted never early (the deadline minus [`EARLY`]) and within a generous deadline.

mod connection;
mod drain;

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::routing::{get, post};
use gateway_host::{ConnectionLimits, Server, Shutdown};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A running server.
pub struct Running {
    pub addr: SocketAddr,
}

/// How much earlier than its deadline a close may be seen (the server's clock for a connection
/// starts at accept, the test's a moment later or earlier).
pub const EARLY: Duration = Duration::from_millis(100);
/// How much later than its deadline a close may be seen on a loaded machine.
pub const LATE: Duration = Duration::from_secs(3);

/// The gap between the chunks of `/stream`.
pub const STREAM_GAP: Duration = Duration::from_millis(1500);

/// `/fast` answers at once; `/stream` sends three chunks [`STREAM_GAP`] apart; `/upload` reads
/// the whole body and answers with its length or the read error.
pub fn test_router() -> Router {
    Router::new()
        .route("/fast", get(|| async { "ok" }))
        .route(
            "/stream",
            get(|| async {
                let chunks = futures_util::stream::unfold(0u8, |n| async move {
                    if n == 3 {
                        return None;
                    }
                    tokio::time::sleep(STREAM_GAP).await;
                    Some((Ok::<_, std::io::Error>(bytes::Bytes::from(format!("chunk{n};"))), n + 1))
                });
                Body::from_stream(chunks)
            }),
        )
        .route(
            "/upload",
            post(|body: Body| async move {
                match axum::body::to_bytes(body, usize::MAX).await {
                    Ok(bytes) => format!("read {} bytes", bytes.len()),
                    Err(err) => {
                        let mut text = format!("body error: {err}");
                        let mut source = std::error::Error::source(&err);
                        while let Some(cause) = source {
                            text.push_str(&format!(": {cause}"));
                            source = cause.source();
                        }
                        text
                    }
                }
            }),
        )
}

/// Limits with deadlines in milliseconds.
pub fn limits(header_ms: u64, body_ms: u64, idle_ms: u64, max_connections: usize) -> ConnectionLimits {
    ConnectionLimits {
        header_read_timeout: Duration::from_millis(header_ms),
        body_read_timeout: Duration::from_millis(body_ms),
        keep_alive_idle_timeout: Duration::from_millis(idle_ms),
        max_connections,
        overflow_connections: 4,
    }
}

/// Serves `server` until the test's runtime ends.
pub async fn start(server: Server) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(server.serve(listener, Shutdown::new(Duration::from_secs(5))));
    Running { addr }
}

/// A client socket with `TCP_NODELAY`, so a small write is not held back for a delayed ACK.
pub async fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    stream
}

/// Writes one keep-alive GET and reads its (Content-Length framed) response.
pub async fn get_on(stream: &mut TcpStream, path: &str) -> String {
    stream.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes()).await.expect("write");
    read_response(stream).await
}

/// Reads one response whose body has a Content-Length (or none: up to EOF).
pub async fn read_response(stream: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))
                .and_then(|v| v.parse::<usize>().ok());
            if let Some(length) = length
                && buf.len() >= end + 4 + length
            {
                return text;
            }
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return String::from_utf8_lossy(&buf).into_owned(),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Reads until the peer closes; returns what arrived (a reset counts as closed).
pub async fn read_to_close(stream: &mut (impl tokio::io::AsyncRead + Unpin)) -> Vec<u8> {
    let mut out = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return out,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Awaits `what` for at most a few seconds (what it waits for happens at once when it works).
async fn bounded<T>(what: impl Future<Output = T>) -> T {
    tokio::time::timeout(LATE, what).await.expect("answered or closed at once")
}

fn overloaded_router() -> Router {
    Router::new().fallback(|| async { (axum::http::StatusCode::SERVICE_UNAVAILABLE, "over the cap") })
}

#[tokio::test]
async fn connections_beyond_the_cap_get_503_and_the_ones_served_carry_on() {
    let server = Server::new(test_router(), limits(30_000, 30_000, 60_000, 2)).overloaded(overloaded_router());
    let running = start(server).await;
    let mut first = connect(running.addr).await;
    let mut second = connect(running.addr).await;
    assert!(get_on(&mut first, "/fast").await.starts_with("HTTP/1.1 200"));
    assert!(get_on(&mut second, "/fast").await.starts_with("HTTP/1.1 200"));

    let mut third = connect(running.addr).await;
    let refused = bounded(get_on(&mut third, "/fast")).await;
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(refused.to_ascii_lowercase().contains("connection: close"), "{refused}");
    assert!(refused.ends_with("over the cap"), "{refused}");
    assert!(bounded(read_to_close(&mut third)).await.is_empty(), "the refused connection closes after its answer");

    // The connections within the cap were not disturbed.
    assert!(get_on(&mut first, "/fast").await.starts_with("HTTP/1.1 200"));
    assert!(get_on(&mut second, "/fast").await.starts_with("HTTP/1.1 200"));

    // A freed slot serves the next connection normally.
    drop(first);
    test_support::wait_until("a freed slot to serve a new connection", Duration::from_secs(5), || async {
        let mut next = connect(running.addr).await;
        get_on(&mut next, "/fast").await.starts_with("HTTP/1.1 200").then_some(())
    })
    .await
    .expect("served after a slot was freed");
}

#[tokio::test]
async fn beyond_the_overflow_answers_connections_are_closed_unanswered() {
    let mut limits = limits(30_000, 30_000, 60_000, 1);
    limits.overflow_connections = 1;
    let running = start(Server::new(test_router(), limits).overloaded(overloaded_router())).await;
    let mut held = connect(running.addr).await;
    assert!(get_on(&mut held, "/fast").await.starts_with("HTTP/1.1 200"));
    // Takes the one overflow answer slot and says nothing.
    let _silent = connect(running.addr).await;
    tokio::task::yield_now().await;
    let mut unanswered = connect(running.addr).await;
    let _ = unanswered.write_all(b"GET /fast HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(bounded(read_to_close(&mut unanswered)).await.is_empty(), "closed without an answer");
    assert!(get_on(&mut held, "/fast").await.starts_with("HTTP/1.1 200"), "the served connection carries on");
}
