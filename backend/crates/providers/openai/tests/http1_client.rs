//! The hot-path HTTP/1.1 client against scripted upstreams: a listener on an ephemeral port whose
//! test writes canned response bytes, so every framing and connection case is exact.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method};
use provider_openai::http1::{Body, Http1Client, Response, SendError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// Long enough for a loaded machine; a client that waits for bytes that never come fails here.
const DEADLINE: Duration = Duration::from_secs(5);

async fn within<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(DEADLINE, future).await.expect("finished before the deadline")
}

async fn upstream() -> (TcpListener, Arc<Http1Client>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    (listener, Http1Client::new(&url).expect("client"))
}

async fn accept(listener: &TcpListener) -> TcpStream {
    let (socket, _) = within(listener.accept()).await.expect("accept");
    socket.set_nodelay(true).expect("nodelay");
    socket
}

/// One request from `socket`: head and `content-length` body, as text.
async fn read_request(socket: &mut TcpStream) -> String {
    let mut data = Vec::new();
    loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .map_or(0, |v| v.trim().parse::<usize>().expect("content-length"));
            if data.len() >= end + 4 + length {
                assert_eq!(data.len(), end + 4 + length, "nothing after the request");
                return String::from_utf8(data).expect("text");
            }
        }
        let mut buf = [0u8; 4096];
        let read = within(socket.read(&mut buf)).await.expect("read");
        assert!(read > 0, "the client closed before a whole request");
        data.extend_from_slice(&buf[..read]);
    }
}

/// Reads a request and answers it with `response`.
async fn answer(socket: &mut TcpStream, response: &[u8]) -> String {
    let request = read_request(socket).await;
    socket.write_all(response).await.expect("write");
    request
}

async fn post(client: &Arc<Http1Client>, body: &'static str) -> Result<Response, SendError> {
    let mut headers = HeaderMap::new();
    headers.insert("x-test", HeaderValue::from_static("yes"));
    within(client.send(Method::POST, "/codex/responses", headers, Bytes::from_static(body.as_bytes()))).await
}

async fn read_body(body: &mut Body) -> Result<Vec<u8>, String> {
    let mut data = Vec::new();
    while let Some(chunk) = within(body.chunk()).await {
        data.extend_from_slice(&chunk?);
    }
    Ok(data)
}

/// A full exchange that must succeed: status and body.
async fn fetch(client: &Arc<Http1Client>) -> (u16, Vec<u8>) {
    let mut response = post(client, "{}").await.expect("a response");
    (response.status, read_body(&mut response.body).await.expect("a whole body"))
}

fn chunk(data: &str) -> String {
    format!("{:x}\r\n{data}\r\n", data.len())
}

/// After the client dropped its side, the server reads the end of input.
async fn assert_client_closed(socket: &mut TcpStream) {
    let mut buf = [0u8; 64];
    let read = within(socket.read(&mut buf)).await.expect("read");
    assert_eq!(read, 0, "the client closed this connection instead of sending on it");
}

#[tokio::test]
async fn content_length_body_and_request_head() {
    let (listener, client) = upstream().await;
    let port = listener.local_addr().expect("address").port();
    let server = tokio::spawn(async move {
        let mut socket = accept(&listener).await;
        answer(&mut socket, b"HTTP/1.1 201 Created\r\nx-one: 1\r\nx-one: 2\r\ncontent-length: 5\r\n\r\nhello").await
    });
    let mut response = post(&client, r#"{"a":1}"#).await.expect("a response");
    assert_eq!(response.status, 201);
    let ones: Vec<_> = response.headers.get_all("x-one").iter().map(|v| v.as_bytes().to_vec()).collect();
    assert_eq!(ones, [b"1".to_vec(), b"2".to_vec()]);
    assert_eq!(read_body(&mut response.body).await.expect("body"), b"hello");
    assert!(within(response.body.chunk()).await.is_none(), "the body stays ended");
    let request = server.await.expect("server");
    assert_eq!(
        request,
        format!(
            "POST /codex/responses HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nx-test: yes\r\ncontent-length: 7\r\n\r\n{{\"a\":1}}"
        )
    );
}

#[tokio::test]
async fn chunked_body_with_extensions_and_trailers_then_reuse() {
    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        let mut socket = accept(&listener).await;
        let body = "5;name=value\r\nhello\r\n6 ; x=\"y\"\r\n world\r\n0;last\r\nx-trailer: t\r\nx-other: u\r\n\r\n";
        answer(&mut socket, format!("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n{body}").as_bytes()).await;
        // The trailers were consumed exactly: the next request parses on the same connection.
        answer(&mut socket, b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nnext").await;
    });
    assert_eq!(fetch(&client).await, (200, b"hello world".to_vec()));
    assert_eq!(fetch(&client).await, (200, b"next".to_vec()));
    within(server).await.expect("server");
}

#[tokio::test]
async fn chunked_response_split_into_single_bytes() {
    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        let mut socket = accept(&listener).await;
        read_request(&mut socket).await;
        let body = format!("{}{}0\r\nx-t: 1\r\n\r\n", chunk("data: one\n\n"), chunk("data: two\n\n"));
        let response =
            format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{body}");
        for byte in response.as_bytes() {
            socket.write_all(&[*byte]).await.expect("write");
            // Pacing, so that the bytes arrive in separate segments.
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        answer(&mut socket, b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    });
    let (status, body) = fetch(&client).await;
    assert_eq!(status, 200);
    assert_eq!(String::from_utf8(body).expect("text"), "data: one\n\ndata: two\n\n");
    assert_eq!(fetch(&client).await, (200, b"ok".to_vec()), "the connection is reused after the split body");
    within(server).await.expect("server");
}

#[tokio::test]
async fn body_without_length_reads_until_close() {
    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        for version in ["1.1", "1.0"] {
            let mut socket = accept(&listener).await;
            answer(&mut socket, format!("HTTP/{version} 200 OK\r\n\r\nabc").as_bytes()).await;
            socket.write_all(b"def").await.expect("write");
        }
    });
    assert_eq!(fetch(&client).await, (200, b"abcdef".to_vec()));
    assert_eq!(fetch(&client).await, (200, b"abcdef".to_vec()), "HTTP/1.0 too");
    within(server).await.expect("server");
}

#[tokio::test]
async fn informational_responses_are_skipped() {
    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        let mut socket = accept(&listener).await;
        let heads = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n";
        answer(&mut socket, format!("{heads}HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").as_bytes()).await;
    });
    let mut response = post(&client, "{}").await.expect("a response");
    assert_eq!(response.status, 200);
    assert!(response.headers.get("link").is_none(), "headers of the final response only");
    assert_eq!(read_body(&mut response.body).await.expect("body"), b"ok");
    within(server).await.expect("server");
}

#[tokio::test]
async fn keep_alive_reuses_one_connection() {
    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        // Only one connection is ever accepted: a second one would never be answered.
        let mut socket = accept(&listener).await;
        let first = answer(&mut socket, b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\none").await;
        let second =
            answer(&mut socket, b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n").await;
        (first, second)
    });
    assert_eq!(fetch(&client).await, (200, b"one".to_vec()));
    assert_eq!(fetch(&client).await, (200, b"two".to_vec()));
    let (first, second) = within(server).await.expect("server");
    assert_eq!(first, second, "the same request bytes both times");
}

#[tokio::test]
async fn responses_without_body_leave_the_connection_reusable() {
    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        let mut socket = accept(&listener).await;
        answer(&mut socket, b"HTTP/1.1 204 No Content\r\n\r\n").await;
        let head = answer(&mut socket, b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n").await;
        answer(&mut socket, b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
        head
    });
    assert_eq!(fetch(&client).await, (204, Vec::new()));
    let mut response = within(client.send(Method::HEAD, "/", HeaderMap::new(), Bytes::new())).await.expect("HEAD");
    assert_eq!(response.headers.get("content-length").map(HeaderValue::as_bytes), Some(&b"10"[..]));
    assert!(within(response.body.chunk()).await.is_none(), "a HEAD response has no body");
    assert_eq!(fetch(&client).await, (200, b"ok".to_vec()));
    let head = within(server).await.expect("server");
    assert!(head.starts_with("HEAD / HTTP/1.1\r\n") && !head.contains("content-length"), "{head}");
}

#[tokio::test]
async fn connection_close_is_not_pooled() {
    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        let mut first = accept(&listener).await;
        answer(&mut first, b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok").await;
        let mut second = accept(&listener).await;
        answer(&mut second, b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
        assert_client_closed(&mut first).await;
    });
    assert_eq!(fetch(&client).await, (200, b"ok".to_vec()));
    assert_eq!(fetch(&client).await, (200, b"ok".to_vec()));
    within(server).await.expect("server");
}

#[tokio::test]
async fn bytes_after_the_body_are_not_pooled() {
    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        let mut first = accept(&listener).await;
        answer(&mut first, b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA").await;
        let mut second = accept(&listener).await;
        answer(&mut second, b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
        assert_client_closed(&mut first).await;
    });
    assert_eq!(fetch(&client).await, (200, b"ok".to_vec()));
    assert_eq!(fetch(&client).await, (200, b"ok".to_vec()));
    within(server).await.expect("server");
}

#[tokio::test]
async fn pooled_connection_closed_while_idle_is_replaced() {
    let (listener, client) = upstream().await;
    let (closed_tx, mut closed) = mpsc::channel::<()>(1);
    let server = tokio::spawn(async move {
        let mut first = accept(&listener).await;
        answer(&mut first, b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
        drop(first);
        closed_tx.send(()).await.expect("test waits");
        let mut second = accept(&listener).await;
        answer(&mut second, b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfresh").await;
    });
    assert_eq!(fetch(&client).await, (200, b"ok".to_vec()));
    within(closed.recv()).await.expect("the server closed its side");
    // Sending on the closed connection would fail after the write (ambiguous): it is never used.
    assert_eq!(fetch(&client).await, (200, b"fresh".to_vec()));
    within(server).await.expect("server");
}

#[tokio::test]
async fn end_of_input_inside_a_head_is_ambiguous() {
    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        let mut socket = accept(&listener).await;
        answer(&mut socket, b"HTTP/1.1 200 OK\r\ncontent-le").await;
    });
    match post(&client, "{}").await {
        Err(SendError::Ambiguous(reason)) => assert!(reason.contains("closed"), "{reason}"),
        Err(other) => panic!("expected an ambiguous failure, got {other:?}"),
        Ok(response) => panic!("expected an ambiguous failure, got status {}", response.status),
    }
    within(server).await.expect("server");
}

#[tokio::test]
async fn oversized_head_is_refused() {
    let (listener, client) = upstream().await;
    let (done_tx, mut done) = mpsc::channel::<()>(1);
    let field = format!("x-filler: {}\r\n", "a".repeat(7 * 1024));
    let server = tokio::spawn(async move {
        let mut socket = accept(&listener).await;
        // 8 fields (57 KB) are within the limit; 10 (72 KB) are not.
        let fine = format!("HTTP/1.1 200 OK\r\n{}content-length: 2\r\n\r\nok", field.repeat(8));
        answer(&mut socket, fine.as_bytes()).await;
        // The head never ends: the client must refuse it by size, not wait for the rest.
        read_request(&mut socket).await;
        // The client may close while this is still being written.
        let _ = socket.write_all(format!("HTTP/1.1 200 OK\r\n{}", field.repeat(10)).as_bytes()).await;
        done.recv().await;
    });
    assert_eq!(fetch(&client).await, (200, b"ok".to_vec()));
    match post(&client, "{}").await {
        Err(SendError::Ambiguous(reason)) => assert!(reason.contains("over 64 KB"), "{reason}"),
        Err(other) => panic!("expected a refused head, got {other:?}"),
        Ok(response) => panic!("expected a refused head, got status {}", response.status),
    }
    done_tx.send(()).await.expect("server waits");
    within(server).await.expect("server");
}

#[tokio::test]
async fn broken_bodies_are_errors() {
    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        for response in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc"[..],
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n",
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n",
        ] {
            let mut socket = accept(&listener).await;
            answer(&mut socket, response).await;
        }
    });
    for case in ["short content-length", "invalid chunk size", "end inside chunked"] {
        let mut response = post(&client, "{}").await.expect("a response");
        assert_eq!(within(response.body.chunk()).await, Some(Ok(Bytes::from_static(b"abc"))), "{case}");
        assert!(matches!(within(response.body.chunk()).await, Some(Err(_))), "{case}: an error");
        assert!(within(response.body.chunk()).await.is_none(), "{case}: then nothing");
    }
    within(server).await.expect("server");
}

#[tokio::test]
async fn sse_events_arrive_one_at_a_time() {
    let (listener, client) = upstream().await;
    let (received_tx, mut received) = mpsc::channel::<()>(1);
    let events = ["event: a\ndata: {\"n\":1}\n\n", "event: b\ndata: {\"n\":2}\n\n", "event: c\ndata: {\"n\":3}\n\n"];
    let server = tokio::spawn(async move {
        let mut socket = accept(&listener).await;
        answer(
            &mut socket,
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
        )
        .await;
        for event in events {
            socket.write_all(chunk(event).as_bytes()).await.expect("write");
            // The next event only after the client has this one.
            within(received.recv()).await.expect("the test received the event");
        }
        socket.write_all(b"0\r\n\r\n").await.expect("write");
    });
    let mut response = post(&client, "{}").await.expect("a response");
    for event in events {
        let data = within(response.body.chunk()).await.expect("an event").expect("no error");
        assert_eq!(data, event.as_bytes());
        received_tx.send(()).await.expect("server waits");
    }
    assert!(within(response.body.chunk()).await.is_none());
    within(server).await.expect("server");
}

#[tokio::test]
async fn refused_connect_is_not_sent() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    drop(listener);
    let client = Http1Client::new(&url).expect("client");
    assert!(matches!(post(&client, "{}").await, Err(SendError::NotSent(_))));
}

#[tokio::test]
async fn a_spliced_body_is_written_whole_from_its_parts() {
    use gateway_protocol::request::{BodyEdit, RequestBody};
    // Many parts (more than one vectored write takes) and a large one (partial writes).
    let mut json = String::from("{");
    for i in 0..200 {
        json.push_str(&format!(r#""k{i}":"{}","#, "v".repeat(1000)));
    }
    json.push_str(&format!(r#""big":"{}"}}"#, "b".repeat(2 << 20)));
    let body = Bytes::from(json);
    let view = RequestBody::parse(&body).expect("valid");
    let mut edit = BodyEdit::new();
    for i in (0..200).step_by(3) {
        edit.remove(&format!("k{i}"));
    }
    edit.set_bool("stream", true);
    let spliced = edit.splice(&body, &view);
    assert!(spliced.parts().len() > 64, "{} parts", spliced.parts().len());
    let expected = String::from_utf8(edit.apply(&body, &view)).expect("text");

    let (listener, client) = upstream().await;
    let server = tokio::spawn(async move {
        let mut socket = accept(&listener).await;
        answer(&mut socket, b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await
    });
    let mut response =
        within(client.send(Method::POST, "/codex/responses", HeaderMap::new(), spliced)).await.expect("a response");
    assert_eq!(read_body(&mut response.body).await.expect("body"), b"ok");
    let request = server.await.expect("server");
    let (head, sent) = request.split_once("\r\n\r\n").expect("head and body");
    assert!(head.contains(&format!("content-length: {}", expected.len())), "{head}");
    assert!(sent == expected, "the upstream received the edited body byte for byte");
}
