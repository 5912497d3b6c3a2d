//! The edge phase: challenge, pages, cookies, and the reset before the response head.

mod challenge;
mod cookie;
mod page;

use std::time::Duration;

use futures_util::StreamExt;
use tokio::io::AsyncReadExt;

use crate::support::{codex_body, raw_post, sim_with_openai, tls_client};

#[tokio::test]
async fn reset_before_head_reads_records_then_resets_without_a_byte() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let auth = format!("Bearer {}", tokens.access_token);
    let path = "/backend-api/codex/responses";
    let mut stream =
        raw_post(&sim, path, &[("authorization", &auth), ("x-sim", "reset_before_head=1")], &codex_body("hi")).await;
    let mut answer = Vec::new();
    let read = stream.read_to_end(&mut answer).await;
    assert!(answer.is_empty(), "no response byte: {:?}", String::from_utf8_lossy(&answer));
    let error = read.expect_err("the connection is reset, not closed");
    assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset);
    let recorded = sim.requests();
    assert_eq!(recorded.len(), 1, "the request was read and recorded");
    assert_eq!(recorded[0].account_id.as_deref(), Some("acct"));
    assert_eq!(sim.account("acct").expect("account").requests_served, 0);

    // From a queued script, on the next request only.
    sim.script("acct", "reset_before_head=1", 1).expect("account");
    let mut stream = raw_post(&sim, path, &[("authorization", &auth)], &codex_body("hi")).await;
    let read = stream.read_to_end(&mut Vec::new()).await;
    assert_eq!(read.expect_err("reset").kind(), std::io::ErrorKind::ConnectionReset);
    let mut stream =
        raw_post(&sim, path, &[("authorization", &auth), ("connection", "close")], &codex_body("hi")).await;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("a normal answer");
    assert!(answer.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&answer));
    sim.shutdown().await;
}

/// Over HTTP/2 the reset takes the whole connection: a stream already open on it dies too.
#[tokio::test]
async fn reset_before_head_over_http2_resets_every_stream_of_the_connection() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let client = tls_client(&sim);
    let url = format!("{}/codex/responses", sim.tls_chatgpt_base_url());
    let slow = client
        .post(&url)
        .bearer_auth(&tokens.access_token)
        .json(&codex_body("sim: events=50 delay_ms=50"))
        .send()
        .await
        .expect("the slow stream starts");
    assert_eq!(slow.version(), reqwest::Version::HTTP_2);
    let reset = client
        .post(&url)
        .bearer_auth(&tokens.access_token)
        .header("x-sim", "reset_before_head=1")
        .json(&codex_body("hi"))
        .send()
        .await;
    assert!(reset.is_err(), "no answer to the reset request: {:?}", reset.map(|r| r.status()));
    let mut body = slow.bytes_stream();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match body.next().await {
                Some(Ok(_)) => {}
                Some(Err(_)) => return true,
                None => return false,
            }
        }
    })
    .await
    .expect("the slow stream ends at once");
    assert!(ended, "the other stream of the connection fails");
    let connections = sim.connections();
    assert_eq!(connections.len(), 1, "both requests shared one connection");
    assert_eq!(connections[0].alpn.as_deref(), Some("h2"));
    sim.shutdown().await;
}
