//! The deadlines of one connection: the header-read timeout (hyper's timer, and the first
//! request of a connection that sends nothing), the body-read idle timeout (tower-http), the
//! keep-alive idle timeout over HTTP/1.1 and HTTP/2, and a busy connection that is not idle.

use std::time::Duration;

use bytes::Bytes;
use gateway_host::Server;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{EARLY, LATE, STREAM_GAP, connect, get_on, limits, read_response, read_to_close, start, test_router};

const SECOND: Duration = Duration::from_secs(1);

/// Asserts a close seen after `elapsed` happened at the `at` deadline: not early, not late.
fn assert_closed_at(elapsed: Duration, at: Duration) {
    assert!(elapsed + EARLY >= at && elapsed <= at + LATE, "closed after {elapsed:?}, expected at {at:?}");
}

/// Awaits `what` for at most the deadline plus twice [`LATE`], so a missing deadline fails the
/// test instead of hanging it.
async fn within<T>(at: Duration, what: impl Future<Output = T>) -> T {
    tokio::time::timeout(at + 2 * LATE, what).await.expect("the connection is closed by its deadline")
}

#[tokio::test]
async fn a_request_head_that_trickles_in_is_cut_at_the_header_read_timeout() {
    let running = start(Server::new(test_router(), limits(1000, 30_000, 60_000, 16))).await;
    let mut stream = connect(running.addr).await;
    let started = Instant::now();
    stream.write_all(b"GET /fast HTTP/1.1\r\nHost: x\r\n").await.expect("write");
    let (mut reader, mut writer) = stream.into_split();
    // One header line every 200 ms, never the blank line that ends the head.
    let trickle = tokio::spawn(async move {
        for line in 0..100 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if writer.write_all(format!("x-slow-{line}: 1\r\n").as_bytes()).await.is_err() {
                break;
            }
        }
    });
    let answer = within(SECOND, read_to_close(&mut reader)).await;
    assert!(answer.is_empty(), "no response to a head that never completed");
    assert_closed_at(started.elapsed(), SECOND);
    trickle.abort();
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_at_the_header_read_timeout() {
    let running = start(Server::new(test_router(), limits(1000, 30_000, 60_000, 16))).await;
    let started = Instant::now();
    let mut stream = connect(running.addr).await;
    assert!(within(SECOND, read_to_close(&mut stream)).await.is_empty());
    assert_closed_at(started.elapsed(), SECOND);
}

#[tokio::test]
async fn a_body_that_goes_silent_fails_at_the_body_read_timeout() {
    let running = start(Server::new(test_router(), limits(10_000, 1000, 60_000, 16))).await;
    let mut stream = connect(running.addr).await;
    stream
        .write_all(b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789")
        .await
        .expect("write");
    let started = Instant::now();
    let response = within(SECOND, read_response(&mut stream)).await;
    assert!(response.contains("data was not received within the designated timeout"), "{response}");
    assert_closed_at(started.elapsed(), SECOND);

    // A body that keeps arriving is not cut, however long it takes in total.
    let mut stream = connect(running.addr).await;
    stream.write_all(b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n").await.expect("write");
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(600)).await;
        stream.write_all(b"0123456789").await.expect("write");
    }
    let response = read_response(&mut stream).await;
    assert!(response.ends_with("read 40 bytes"), "{response}");
}

#[tokio::test]
async fn an_idle_http1_keep_alive_connection_is_closed_at_the_keep_alive_idle_timeout() {
    let running = start(Server::new(test_router(), limits(10_000, 30_000, 1000, 16))).await;
    let mut stream = connect(running.addr).await;
    assert!(get_on(&mut stream, "/fast").await.starts_with("HTTP/1.1 200"));
    let idle_since = Instant::now();
    assert!(within(SECOND, read_to_close(&mut stream)).await.is_empty());
    assert_closed_at(idle_since.elapsed(), SECOND);
}

#[tokio::test]
async fn an_idle_http1_connection_closes_at_the_header_read_timeout_when_that_is_shorter() {
    // hyper starts its header timer as soon as the connection waits for the next request.
    let running = start(Server::new(test_router(), limits(1000, 30_000, 60_000, 16))).await;
    let mut stream = connect(running.addr).await;
    assert!(get_on(&mut stream, "/fast").await.starts_with("HTTP/1.1 200"));
    let idle_since = Instant::now();
    assert!(within(SECOND, read_to_close(&mut stream)).await.is_empty());
    assert_closed_at(idle_since.elapsed(), SECOND);
}

#[tokio::test]
async fn a_response_streaming_longer_than_the_idle_timeout_is_not_idle() {
    let running = start(Server::new(test_router(), limits(10_000, 30_000, 1000, 16))).await;
    let mut stream = connect(running.addr).await;
    stream.write_all(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n").await.expect("write");
    let started = Instant::now();
    let mut received = Vec::new();
    let mut chunk = [0u8; 1024];
    while !String::from_utf8_lossy(&received).contains("chunk2;") {
        let n = stream.read(&mut chunk).await.expect("read");
        assert!(n > 0, "cut mid-stream: {}", String::from_utf8_lossy(&received));
        received.extend_from_slice(&chunk[..n]);
    }
    assert!(started.elapsed() >= 3 * STREAM_GAP, "three gaps, each longer than the idle timeout");
}

async fn h2_connect(addr: std::net::SocketAddr) -> (SendRequest<Empty<Bytes>>, JoinHandle<()>) {
    let stream = connect(addr).await;
    let (sender, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream)).await.expect("h2 handshake");
    let driver = tokio::spawn(async move {
        let _ = conn.await;
    });
    (sender, driver)
}

async fn h2_get(sender: &mut SendRequest<Empty<Bytes>>, path: &str) -> (u16, Bytes) {
    let request = hyper::Request::get(format!("http://x{path}")).body(Empty::new()).expect("request");
    let response = sender.send_request(request).await.expect("h2 response");
    let status = response.status().as_u16();
    (status, response.into_body().collect().await.expect("h2 body").to_bytes())
}

#[tokio::test]
async fn an_idle_http2_connection_gets_goaway_at_the_keep_alive_idle_timeout() {
    let running = start(Server::new(test_router(), limits(10_000, 30_000, 1000, 16))).await;
    let (mut sender, driver) = h2_connect(running.addr).await;
    assert_eq!(h2_get(&mut sender, "/fast").await, (200, Bytes::from_static(b"ok")));
    // A stream longer than the idle timeout keeps the connection busy.
    let (status, body) = h2_get(&mut sender, "/stream").await;
    assert_eq!((status, body), (200, Bytes::from_static(b"chunk0;chunk1;chunk2;")));
    let idle_since = Instant::now();
    within(SECOND, driver).await.expect("the client connection ends");
    assert_closed_at(idle_since.elapsed(), SECOND);
}

#[tokio::test]
async fn an_http2_connection_that_starts_no_request_is_closed_at_the_header_read_timeout() {
    let running = start(Server::new(test_router(), limits(1000, 30_000, 60_000, 16))).await;
    let started = Instant::now();
    let (_sender, driver) = h2_connect(running.addr).await;
    within(SECOND, driver).await.expect("the client connection ends");
    assert_closed_at(started.elapsed(), SECOND);
}

/// The HTTP/2 connection preface (RFC 9113 §3.4) and an empty SETTINGS frame.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const H2_EMPTY_SETTINGS: &[u8] = &[0, 0, 0, 4, 0, 0, 0, 0, 0];

#[tokio::test]
async fn an_http2_preface_that_arrives_in_pieces_is_answered_over_http2() {
    let running = start(Server::new(test_router(), limits(1000, 30_000, 60_000, 16))).await;
    let mut stream = connect(running.addr).await;
    stream.write_all(&H2_PREFACE[..10]).await.expect("write");
    tokio::time::sleep(Duration::from_millis(100)).await;
    stream.write_all(&H2_PREFACE[10..]).await.expect("write");
    stream.write_all(H2_EMPTY_SETTINGS).await.expect("write");
    let mut frame_head = [0u8; 9];
    within(SECOND, stream.read_exact(&mut frame_head)).await.expect("the server's first frame");
    assert_eq!(frame_head[3], 4, "the server's first frame is its SETTINGS: {frame_head:?}");
}

#[tokio::test]
async fn an_http1_request_that_starts_like_the_http2_preface_is_answered_over_http1() {
    let running = start(Server::new(test_router(), limits(1000, 30_000, 60_000, 16))).await;
    let mut stream = connect(running.addr).await;
    stream.write_all(b"P").await.expect("write");
    tokio::time::sleep(Duration::from_millis(100)).await;
    stream.write_all(b"UT /fast HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").await.expect("write");
    let answer = within(SECOND, read_response(&mut stream)).await;
    assert!(answer.starts_with("HTTP/1.1 "), "{answer}");
}

/// A body that sends one chunk and then nothing, and says when it is dropped.
fn silent_after_one_chunk(dropped: tokio::sync::mpsc::UnboundedSender<()>) -> axum::body::Body {
    struct Guard(tokio::sync::mpsc::UnboundedSender<()>);
    impl Drop for Guard {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    let guard = Guard(dropped);
    let chunks = futures_util::stream::unfold((0u8, guard), |(n, guard)| async move {
        if n > 0 {
            std::future::pending::<()>().await;
        }
        Some((Ok::<_, std::io::Error>(Bytes::from_static(b"first;")), (n + 1, guard)))
    });
    axum::body::Body::from_stream(chunks)
}

fn silent_router() -> (axum::Router, tokio::sync::mpsc::UnboundedReceiver<()>) {
    let (dropped, drops) = tokio::sync::mpsc::unbounded_channel();
    let router = axum::Router::new()
        .route("/silent", axum::routing::get(move || std::future::ready(silent_after_one_chunk(dropped.clone()))))
        .route("/fast", axum::routing::get(|| async { "ok" }));
    (router, drops)
}

/// Reads from `stream` until `needle` has arrived; returns everything read.
async fn read_until(stream: &mut tokio::net::TcpStream, needle: &str) -> String {
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains(needle) {
        let n = stream.read(&mut chunk).await.expect("read");
        assert!(n > 0, "closed before `{needle}`: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8_lossy(&seen).into_owned()
}

#[tokio::test]
async fn a_client_that_hangs_up_while_its_answer_is_silent_ends_the_answer() {
    let (router, mut drops) = silent_router();
    let running = start(Server::new(router, limits(1000, 30_000, 60_000, 16))).await;
    let mut stream = connect(running.addr).await;
    stream.write_all(b"GET /silent HTTP/1.1\r\nHost: x\r\n\r\n").await.expect("write");
    read_until(&mut stream, "first;").await;
    drop(stream);
    // Nothing is written after the close, so only watching the socket can notice it.
    within(SECOND, drops.recv()).await.expect("the answer's body is dropped");
}

#[tokio::test]
async fn a_request_pipelined_behind_a_silent_answer_does_not_end_it() {
    let (router, mut drops) = silent_router();
    let running = start(Server::new(router, limits(1000, 30_000, 60_000, 16))).await;
    let mut stream = connect(running.addr).await;
    stream
        .write_all(b"GET /silent HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("write");
    read_until(&mut stream, "first;").await;
    // The pipelined bytes wait unread behind the answer: the client is still there.
    let waited = tokio::time::timeout(2 * SECOND, drops.recv()).await;
    assert!(waited.is_err(), "the silent answer was ended although the client stayed");
}
