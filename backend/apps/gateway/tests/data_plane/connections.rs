//! The connection limits of the real binary, from its configuration: the cap answers 503 in
//! the OpenAI shape without disturbing the connections it serves, and the header-read and
//! body-read deadlines close what stalls.

use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;
use crate::wire;

const HEALTH: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

#[tokio::test]
async fn beyond_max_connections_the_gateway_answers_503_and_keeps_serving_the_others() {
    let gateway =
        Gateway::start_with(vec![AccountSpec::openai("acct-a")], &[("SWITCHBOARD_SERVER_MAX_CONNECTIONS", "3")]).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut stream = wire::connect(&gateway.url).await;
        let answer = wire::exchange(&mut stream, HEALTH, Duration::from_secs(10)).await.expect("served");
        assert_eq!(answer.status, 200);
        held.push(stream);
    }

    let mut over = wire::connect(&gateway.url).await;
    let request = format!("GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\r\n", gateway.key);
    let answer = wire::exchange(&mut over, request.as_bytes(), Duration::from_secs(10)).await.expect("answered");
    assert_eq!(answer.status, 503, "{answer:?}");
    assert_eq!(answer.json()["error"]["code"], "gateway_overloaded");
    assert_eq!(answer.json()["error"]["type"], "server_error");
    assert_eq!(answer.header("retry-after"), Some("1"));
    assert_eq!(answer.header("connection"), Some("close"));
    assert!(tokio::time::timeout(Duration::from_secs(10), wire::read_to_close(&mut over)).await.is_ok());

    for stream in &mut held {
        let answer = wire::exchange(stream, HEALTH, Duration::from_secs(10)).await.expect("still served");
        assert_eq!(answer.status, 200, "a connection within the cap is not disturbed");
    }
    held.pop();
    test_support::wait_until("a freed slot to serve a new connection", Duration::from_secs(10), || async {
        let mut stream = wire::connect(&gateway.url).await;
        let answer = wire::exchange(&mut stream, HEALTH, Duration::from_secs(10)).await?;
        (answer.status == 200).then_some(())
    })
    .await
    .expect("served once a slot is free");
}

#[tokio::test]
async fn stalled_heads_and_bodies_are_closed_at_the_configured_deadlines() {
    let gateway = Gateway::start_with(
        vec![AccountSpec::openai("acct-a")],
        &[
            ("SWITCHBOARD_SERVER_HEADER_READ_TIMEOUT_SECONDS", "1"),
            ("SWITCHBOARD_SERVER_BODY_READ_TIMEOUT_SECONDS", "1"),
        ],
    )
    .await;
    // Nothing sent, and a head that never ends: both closed at about a second.
    let mut silent = wire::connect(&gateway.url).await;
    let mut slow = wire::connect(&gateway.url).await;
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n").await.expect("write");
    let started = Instant::now();
    for stream in [&mut silent, &mut slow] {
        let rest = tokio::time::timeout(Duration::from_secs(10), wire::read_to_close(stream)).await;
        assert!(rest.expect("closed by the header deadline").is_empty());
    }
    assert!(started.elapsed() >= Duration::from_millis(900), "not before the deadline: {:?}", started.elapsed());

    // A body that stops arriving: 408 in the OpenAI shape, then the connection closes.
    let mut stream = wire::connect(&gateway.url).await;
    let head = format!(
        "POST /v1/responses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"model\":",
        gateway.key
    );
    let started = Instant::now();
    let answer = wire::exchange(&mut stream, head.as_bytes(), Duration::from_secs(10)).await.expect("answered");
    assert!(started.elapsed() >= Duration::from_millis(900), "not before the deadline: {:?}", started.elapsed());
    assert_eq!((answer.status, answer.json()["error"]["code"].as_str()), (408, Some("request_timeout")), "{answer:?}");
    assert!(tokio::time::timeout(Duration::from_secs(10), wire::read_to_close(&mut stream)).await.is_ok());
}
