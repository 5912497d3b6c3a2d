//! Compressed answers (`http/decode.rs`, decision 0234): the simulator's `zstd` and `gzip`
//! answers arrive decoded, a compressed stream is decoded chunk by chunk as it arrives (a tiny
//! local server holds the second event back until the first was read), and a broken, unknown
//! or bomb-shaped body fails or is cut into bounded pieces.

use std::io::Write;

use gateway_transport::http::decode::MAX_PIECE;
use gateway_transport::{HttpClient, HttpRequest, HttpResponse};
use http::HeaderValue;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::oneshot;

use crate::support::{client, codex_body, sim};

async fn read_all(response: &mut HttpResponse) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await {
        body.extend_from_slice(&chunk?);
    }
    Ok(body)
}

#[tokio::test]
async fn the_simulators_compressed_answers_arrive_decoded() {
    let (sim, tokens) = sim().await;
    let client = client(&sim);
    for offered in ["zstd,gzip", "gzip", "zstd"] {
        let url = format!("{}/codex/responses", sim.tls_chatgpt_base_url());
        let request = HttpRequest::post(&url)
            .expect("url")
            .header(http::header::AUTHORIZATION, format!("Bearer {}", tokens.access_token).parse().expect("header"))
            .header(http::header::ACCEPT_ENCODING, HeaderValue::from_static(offered))
            .json(&codex_body("hello"));
        let mut response = client.send(request, None).await.expect("answered");
        assert_eq!(response.status, 200);
        assert!(!response.headers.contains_key(http::header::CONTENT_ENCODING), "the headers describe decoded bytes");
        let text = String::from_utf8(read_all(&mut response).await.expect("decoded")).expect("utf-8");
        assert!(text.starts_with("event: response.created"), "{offered}: {text}");
        assert!(text.contains("event: response.completed"), "{offered}: {text}");
    }
    let usage = HttpRequest::get(&format!("{}/wham/usage", sim.tls_chatgpt_base_url()))
        .expect("url")
        .header(http::header::AUTHORIZATION, format!("Bearer {}", tokens.access_token).parse().expect("header"))
        .header(http::header::ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
    let body = client.send(usage, None).await.expect("answered").bytes(1 << 20).await.expect("decoded JSON");
    let _: serde_json::Value = serde_json::from_slice(&body).expect("JSON after decoding");
}

/// What the local server sends after the headers: the pieces of a chunked body, with a pause
/// (until the test says so) before the piece at `hold_before`.
struct Script {
    encoding: &'static str,
    pieces: Vec<Vec<u8>>,
    hold_before: Option<usize>,
}

/// A one-shot HTTP/1.1 server playing `script`; the sender releases the held piece.
async fn serve(script: Script) -> (String, oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/stream", listener.local_addr().expect("address"));
    let (release, released) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            let read = socket.read(&mut buffer).await.expect("read");
            request.extend_from_slice(&buffer[..read]);
        }
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: {}\r\ntransfer-encoding: chunked\r\n\r\n",
            script.encoding
        );
        socket.write_all(head.as_bytes()).await.expect("write");
        let mut released = Some(released);
        for (index, piece) in script.pieces.iter().enumerate() {
            if script.hold_before == Some(index)
                && let Some(released) = released.take()
            {
                let _ = released.await;
            }
            socket.write_all(format!("{:x}\r\n", piece.len()).as_bytes()).await.expect("write");
            socket.write_all(piece).await.expect("write");
            socket.write_all(b"\r\n").await.expect("write");
            socket.flush().await.expect("flush");
        }
        socket.write_all(b"0\r\n\r\n").await.expect("write");
        let _ = socket.read(&mut buffer).await;
    });
    (url, release)
}

/// The compressed pieces of `events` (each flushed), and the stream's end.
fn compressed(encoding: &str, events: &[&[u8]]) -> (Vec<Vec<u8>>, Vec<u8>) {
    match encoding {
        "zstd" => {
            let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 3).expect("encoder");
            let pieces = events
                .iter()
                .map(|event| {
                    encoder.write_all(event).expect("write");
                    encoder.flush().expect("flush");
                    std::mem::take(encoder.get_mut())
                })
                .collect();
            (pieces, encoder.finish().expect("finish"))
        }
        _ => {
            let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            let pieces = events
                .iter()
                .map(|event| {
                    encoder.write_all(event).expect("write");
                    encoder.flush().expect("flush");
                    std::mem::take(encoder.get_mut())
                })
                .collect();
            (pieces, encoder.finish().expect("finish"))
        }
    }
}

fn plain_client() -> HttpClient {
    let roots = gateway_transport::TlsRoots::new(None).expect("roots");
    HttpClient::new(gateway_transport::Connector::new(roots, std::time::Duration::from_secs(5)))
}

const FIRST: &[u8] = b"event: response.created\ndata: {\"type\":\"response.created\"}\n\n";
const SECOND: &[u8] = b"event: response.completed\ndata: {\"type\":\"response.completed\"}\n\n";

#[tokio::test]
async fn a_compressed_stream_is_decoded_as_it_arrives() {
    for encoding in ["zstd", "gzip"] {
        let (mut pieces, end) = compressed(encoding, &[FIRST, SECOND]);
        pieces.push(end);
        let (url, release) = serve(Script { encoding, pieces, hold_before: Some(1) }).await;
        let client = plain_client();
        let mut response = client.send(HttpRequest::get(&url).expect("url"), None).await.expect("answered");
        let first = tokio::time::timeout(std::time::Duration::from_secs(5), response.chunk())
            .await
            .expect("the first event is decoded before the rest of the stream exists")
            .expect("a chunk")
            .expect("decoded");
        assert_eq!(&first[..], FIRST, "{encoding}");
        release.send(()).expect("release");
        assert_eq!(read_all(&mut response).await.expect("decoded"), SECOND, "{encoding}");
    }
}

#[tokio::test]
async fn a_compressed_stream_that_ends_early_is_an_error() {
    for encoding in ["zstd", "gzip"] {
        let (pieces, _end) = compressed(encoding, &[FIRST]);
        let (url, _release) = serve(Script { encoding, pieces, hold_before: None }).await;
        let mut response = plain_client().send(HttpRequest::get(&url).expect("url"), None).await.expect("answered");
        let error = read_all(&mut response).await.expect_err("the stream is incomplete");
        assert!(error.contains("ended early"), "{encoding}: {error}");
    }
}

#[tokio::test]
async fn an_encoding_that_is_not_decoded_fails_the_body() {
    let (url, _release) =
        serve(Script { encoding: "br", pieces: vec![b"\x1b\x00\x00".to_vec()], hold_before: None }).await;
    let mut response = plain_client().send(HttpRequest::get(&url).expect("url"), None).await.expect("answered");
    let error = read_all(&mut response).await.expect_err("not decoded");
    assert!(error.contains("`br`"), "{error}");
}

#[tokio::test]
async fn a_small_input_never_expands_into_one_huge_chunk() {
    let zeros = vec![0u8; 8 << 20];
    let (mut pieces, end) = compressed("zstd", &[&zeros]);
    pieces.push(end);
    assert!(pieces.iter().map(Vec::len).sum::<usize>() < 4096, "a bomb: a few bytes for 8 MiB");
    let (url, _release) = serve(Script { encoding: "zstd", pieces, hold_before: None }).await;
    let mut response = plain_client().send(HttpRequest::get(&url).expect("url"), None).await.expect("answered");
    let mut total = 0;
    while let Some(chunk) = response.chunk().await {
        let chunk = chunk.expect("decoded");
        assert!(chunk.len() <= MAX_PIECE, "{}", chunk.len());
        total += chunk.len();
    }
    assert_eq!(total, zeros.len());
}
