//! Request bodies end to end: the controlled edits an ordinary SDK call needs, duplicate keys
//! the gateway reads, and a large body held once.

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

async fn post(gateway: &Gateway, body: String) -> (u16, Value) {
    let response = gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .bearer_auth(&gateway.key)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("sent");
    let status = response.status().as_u16();
    (status, response.json().await.expect("json body"))
}

fn upstream_calls(gateway: &Gateway) -> Vec<upstream_sim::RecordedRequest> {
    gateway.sim.requests().into_iter().filter(|r| r.path.ends_with("/codex/responses")).collect()
}

pub type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

pub async fn ws_connect(gateway: &Gateway) -> Socket {
    let url = gateway.url.replacen("http://", "ws://", 1) + "/v1/responses";
    let mut request = url.into_client_request().expect("request");
    request.headers_mut().insert("authorization", format!("Bearer {}", gateway.key).parse().expect("header"));
    tokio_tungstenite::connect_async(request).await.expect("websocket connects").0
}

/// The next text frame as JSON (skipping control frames).
pub async fn next_event(socket: &mut Socket) -> Value {
    loop {
        match socket.next().await.expect("a frame").expect("a readable frame") {
            Message::Text(text) => return serde_json::from_str(text.as_str()).expect("json frame"),
            Message::Ping(_) | Message::Pong(_) => {}
            other => panic!("expected a text frame, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn an_sdk_call_with_temperature_and_top_p_reaches_upstream_without_them() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    // What `client.responses.create(model=…, input="hi", temperature=0.5, top_p=1)` sends.
    let (status, body) =
        post(&gateway, r#"{"model":"gpt-5.4","input":"hi","temperature":0.5,"top_p":1}"#.to_owned()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["object"], "response");
    assert_eq!(body["status"], "completed");
    let calls = upstream_calls(&gateway);
    assert_eq!(calls.len(), 1);
    let mut sent: Value = serde_json::from_str(&calls[0].body).expect("the upstream got valid JSON");
    // The turn fields Codex sends, for a client that is not Codex (decision 0330).
    let object = sent.as_object_mut().expect("object");
    for field in ["include", "prompt_cache_key", "client_metadata"] {
        assert!(object.remove(field).is_some(), "{field}");
    }
    assert_eq!(
        sent,
        json!({"model": "gpt-5.4",
               "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
               "stream": true, "store": false})
    );
}

#[tokio::test]
async fn duplicate_keys_the_gateway_reads_are_refused_naming_the_key() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    for (key, first, second) in [
        ("model", r#""gpt-5.4""#, r#""gpt-5.2""#),
        ("stream", "true", "false"),
        ("store", "true", "false"),
        ("previous_response_id", r#""resp_a""#, r#""resp_b""#),
        ("service_tier", r#""default""#, r#""priority""#),
    ] {
        let body = format!(r#"{{"model":"gpt-5.4","{key}":{first},"input":"hi","{key}":{second}}}"#);
        let body = body.replacen(r#"{"model":"gpt-5.4","model""#, r#"{"model""#, 1);
        let (status, error) = post(&gateway, body.clone()).await;
        assert_eq!(status, 400, "{body}: {error}");
        assert_eq!(error["error"]["code"], "invalid_request", "{body}");
        assert_eq!(error["error"]["param"], key, "{body}");
        assert!(error["error"]["message"].as_str().is_some_and(|m| m.contains(key)), "{error}");
    }
    assert!(upstream_calls(&gateway).is_empty(), "nothing reached upstream");

    // A duplicate the gateway does not read passes through untouched.
    let body = r#"{"model":"gpt-5.4","x_unknown":1,"input":"hi","x_unknown":2,"stream":true,"store":false}"#;
    let response = gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .bearer_auth(&gateway.key)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body");
    let calls = upstream_calls(&gateway);
    assert_eq!(calls.len(), 1);
    assert!(
        calls[0].body.contains(r#""x_unknown":1,"#) && calls[0].body.contains(r#""x_unknown":2,"#),
        "{}",
        calls[0].body
    );
}

#[tokio::test]
async fn a_duplicate_key_on_a_websocket_gets_the_error_frame_and_the_socket_stays_usable() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let mut socket = ws_connect(&gateway).await;
    let frame = r#"{"type":"response.create","model":"gpt-5.4","store":false,"input":"hi","model":"gpt-5.2"}"#;
    socket.send(Message::text(frame)).await.expect("send");
    let error = next_event(&mut socket).await;
    assert_eq!(error["type"], "error");
    assert_eq!(error["status"], 400);
    assert_eq!(error["error"]["code"], "invalid_request");
    assert_eq!(error["error"]["param"], "model");
    let good = json!({"type": "response.create", "model": "gpt-5.4", "store": false, "input": "sim: text='ok'"});
    socket.send(Message::text(good.to_string())).await.expect("send");
    loop {
        let event = next_event(&mut socket).await;
        if event["type"] == "response.completed" {
            break;
        }
        assert_ne!(event["type"], "error", "{event}");
    }
}

/// `VmRSS` or `VmHWM` of `pid`, in bytes.
fn memory(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let line = status.lines().find(|l| l.starts_with(field)).expect("the field");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()).expect("kB") * 1024
}

#[tokio::test]
async fn a_30_mib_body_is_held_once() {
    const BODY: usize = 30 << 20;
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let pid = gateway.pid().expect("running");
    // One small call first: connection pools and lazily built state are not the body's cost.
    let (status, _) = post(&gateway, r#"{"model":"gpt-5.4","input":"warm up"}"#.to_owned()).await;
    assert_eq!(status, 200);
    let before = memory(pid, "VmRSS:");
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").expect("reset the peak RSS");
    // A string `input` and no `store`: the body needs edits (wrap, append), the worst case.
    let text = "z".repeat(BODY - 40);
    let (status, body) = post(&gateway, format!(r#"{{"model":"gpt-5.4","input":"{text}"}}"#)).await;
    assert_eq!(status, 200, "{body}");
    let growth = memory(pid, "VmHWM:").saturating_sub(before);
    eprintln!("peak RSS growth for a {} MiB body: {:.1} MiB", BODY >> 20, growth as f64 / f64::from(1 << 20));
    assert!(growth as f64 <= 1.5 * BODY as f64, "peak RSS grew by {} MiB for a {} MiB body", growth >> 20, BODY >> 20);
}

#[tokio::test]
async fn a_large_websocket_message_reaches_the_upstream_socket_whole() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let mut socket = ws_connect(&gateway).await;
    // Sent upstream as fragments (above 64 KiB), with multi-byte characters at every cut.
    let text = "é😀".repeat(50_000);
    let frame = json!({"type": "response.create", "model": "gpt-5.4", "input": text});
    socket.send(Message::text(frame.to_string())).await.expect("send");
    loop {
        let event = next_event(&mut socket).await;
        assert_ne!(event["type"], "error", "{event}");
        if event["type"] == "response.completed" {
            break;
        }
    }
    let received =
        gateway.sim.requests().into_iter().find(|r| r.method == "WS").expect("the upstream socket's message");
    let sent: Value = serde_json::from_str(&received.body).expect("one whole JSON message");
    assert_eq!(sent, json!({"type": "response.create", "model": "gpt-5.4", "input": text, "store": false}));
}
