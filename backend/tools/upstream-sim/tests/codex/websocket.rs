use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use upstream_sim::{AccountPatch, SettingsPatch, SimHandle, TokenSet};

use crate::support::sim_with_openai;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

fn ws_url(sim: &SimHandle) -> String {
    format!("{}/responses", sim.codex_base_url().replacen("http://", "ws://", 1))
}

async fn connect(sim: &SimHandle, tokens: &TokenSet, beta: bool) -> Result<Socket, WsError> {
    let beta: &[(&str, &str)] = if beta { &[("openai-beta", "responses_websockets=2026-02-06")] } else { &[] };
    connect_with(sim, tokens, beta).await.map(|(socket, _)| socket)
}

/// Upgrades with `extra` headers; the socket and the 101's headers.
async fn connect_with(
    sim: &SimHandle,
    tokens: &TokenSet,
    extra: &[(&str, &str)],
) -> Result<(Socket, http::HeaderMap), WsError> {
    let mut request = ws_url(sim).into_client_request().expect("request");
    let headers = request.headers_mut();
    headers.insert("authorization", format!("Bearer {}", tokens.access_token).parse().expect("header"));
    headers.insert("chatgpt-account-id", tokens.account_id.parse().expect("header"));
    for (name, value) in extra {
        headers.append(http::HeaderName::from_bytes(name.as_bytes()).expect("name"), value.parse().expect("value"));
    }
    tokio_tungstenite::connect_async(request).await.map(|(socket, response)| (socket, response.headers().clone()))
}

const BETA: (&str, &str) = ("openai-beta", "responses_websockets=2026-02-06");

async fn send(socket: &mut Socket, frame: Value) {
    socket.send(Message::text(frame.to_string())).await.expect("send");
}

async fn next_json(socket: &mut Socket) -> Value {
    loop {
        match socket.next().await.expect("socket open").expect("frame") {
            Message::Text(text) => return serde_json::from_str(text.as_str()).expect("json frame"),
            Message::Ping(_) | Message::Pong(_) => {}
            other => panic!("unexpected frame {other:?}"),
        }
    }
}

/// Frames up to and including a terminal event or an error.
async fn turn(socket: &mut Socket) -> Vec<Value> {
    let mut frames = Vec::new();
    loop {
        let frame = next_json(socket).await;
        let kind = frame["type"].as_str().unwrap_or_default().to_owned();
        frames.push(frame);
        if matches!(kind.as_str(), "response.completed" | "response.failed" | "response.incomplete" | "error") {
            return frames;
        }
    }
}

fn create(text: &str) -> Value {
    json!({
        "type": "response.create",
        "model": "gpt-5.4",
        "store": false,
        "stream": true,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}],
    })
}

fn types(frames: &[Value]) -> Vec<&str> {
    frames.iter().map(|f| f["type"].as_str().unwrap_or_default()).collect()
}

#[tokio::test]
async fn upgrade_needs_the_beta_header_and_an_account_that_allows_it() {
    let (sim, tokens) = sim_with_openai("pro").await;
    match connect(&sim, &tokens, false).await {
        Err(WsError::Http(response)) => assert_eq!(response.status(), 426),
        other => panic!("expected 426, got {:?}", other.map(|_| ())),
    }
    sim.update_account("acct", AccountPatch { ws_refused: Some(true), ..Default::default() }).expect("account");
    match connect(&sim, &tokens, true).await {
        Err(WsError::Http(response)) => assert_eq!(response.status(), 426),
        other => panic!("expected 426, got {:?}", other.map(|_| ())),
    }
    sim.shutdown().await;
}

#[tokio::test]
async fn prewarm_then_previous_response_id_chain() {
    let (sim, tokens) = sim_with_openai("pro").await;
    let mut socket = connect(&sim, &tokens, true).await.expect("upgrade");
    let mut prewarm = create("sim: text='over ws' events=2");
    prewarm["generate"] = json!(false);
    send(&mut socket, prewarm).await;
    let frames = turn(&mut socket).await;
    assert_eq!(
        types(&frames),
        ["codex.rate_limits", "codex.response.metadata", "response.created", "response.completed"]
    );
    assert_eq!(frames[0]["rate_limits"]["primary"]["window_minutes"], 300);
    let prewarm_id = frames[3]["response"]["id"].as_str().expect("id").to_owned();
    assert_eq!(frames[3]["response"]["output"], json!([]));

    let follow = json!({"type": "response.create", "model": "gpt-5.4", "store": false, "previous_response_id": prewarm_id, "input": []});
    send(&mut socket, follow).await;
    let frames = turn(&mut socket).await;
    let completed = frames.last().expect("terminal");
    assert_eq!(completed["type"], "response.completed");
    assert_eq!(completed["response"]["output"][0]["content"][0]["text"], "over ws");
    let seqs: Vec<u64> = frames[2..].iter().map(|f| f["sequence_number"].as_u64().expect("seq")).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));

    let stale = json!({"type": "response.create", "model": "gpt-5.4", "store": false, "previous_response_id": prewarm_id, "input": []});
    send(&mut socket, stale).await;
    let error = next_json(&mut socket).await;
    assert_eq!(error["type"], "error");
    assert_eq!(error["status"], 400);
    assert_eq!(error["error"]["code"], "previous_response_not_found");
    assert_eq!(error["error"]["param"], "previous_response_id");

    send(&mut socket, create("still usable")).await;
    assert_eq!(turn(&mut socket).await.last().expect("terminal")["type"], "response.completed");

    socket.send(Message::Ping("p".into())).await.expect("ping");
    let pong = socket.next().await.expect("open").expect("frame");
    assert_eq!(pong, Message::Pong("p".into()));
    sim.shutdown().await;
}

#[tokio::test]
async fn quota_and_scripted_errors_arrive_as_error_frames() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let mut socket = connect(&sim, &tokens, true).await.expect("upgrade");
    send(&mut socket, create("sim: status=503 code=server_is_overloaded")).await;
    let error = next_json(&mut socket).await;
    assert_eq!(error["status"], 503);
    assert_eq!(error["error"]["code"], "server_is_overloaded");

    sim.exhaust_quota("acct").expect("account");
    send(&mut socket, create("hi")).await;
    let error = next_json(&mut socket).await;
    assert_eq!(error["type"], "error");
    assert_eq!(error["status"], 429);
    assert_eq!(error["error"]["type"], "usage_limit_reached");
    assert!(error["error"]["resets_at"].as_u64().is_some());
    assert_eq!(error["headers"]["x-codex-primary-used-percent"], "100");
    sim.shutdown().await;
}

#[tokio::test]
async fn connection_age_limit() {
    let (sim, tokens) = sim_with_openai("plus").await;
    sim.update_settings(SettingsPatch { ws_max_age_secs: Some(0), ..Default::default() });
    let mut socket = connect(&sim, &tokens, true).await.expect("upgrade");
    send(&mut socket, create("hi")).await;
    let error = next_json(&mut socket).await;
    assert_eq!(error["error"]["code"], "websocket_connection_limit_reached");
    assert!(matches!(socket.next().await, Some(Ok(Message::Close(_))) | None));
    sim.shutdown().await;
}

#[tokio::test]
async fn scripted_drop_ends_without_a_close_frame() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let mut socket = connect(&sim, &tokens, true).await.expect("upgrade");
    send(&mut socket, create("sim: drop_after=4")).await;
    let mut seen = 0;
    loop {
        match socket.next().await {
            Some(Ok(Message::Text(_))) => seen += 1,
            Some(Ok(Message::Close(_))) => panic!("a drop sends no close frame"),
            Some(Ok(_)) => {}
            Some(Err(_)) | None => break,
        }
    }
    assert_eq!(seen, 2 + 4, "rate limits + metadata + 4 events");
    sim.shutdown().await;
}

#[tokio::test]
async fn a_message_above_the_limit_is_closed_with_1009() {
    let (sim, tokens) = sim_with_openai("plus").await;
    sim.update_settings(SettingsPatch { ws_max_message_bytes: Some(4096), ..Default::default() });
    let mut socket = connect(&sim, &tokens, true).await.expect("upgrade");
    send(&mut socket, create(&"x".repeat(8192))).await;
    match socket.next().await {
        Some(Ok(Message::Close(Some(frame)))) => assert_eq!(u16::from(frame.code), 1009),
        other => panic!("expected a 1009 close, got {other:?}"),
    }
    assert_eq!(sim.requests().iter().filter(|r| r.method == "WS").count(), 1, "the message was read and recorded");
    sim.shutdown().await;
}

#[tokio::test]
async fn a_frame_above_the_frame_limit_drops_the_connection() {
    let (sim, tokens) = sim_with_openai("plus").await;
    sim.update_settings(SettingsPatch { ws_max_frame_bytes: Some(4096), ..Default::default() });
    let mut socket = connect(&sim, &tokens, true).await.expect("upgrade");
    // The frame is refused at its header: the message is never read or recorded.
    let _ = socket.send(Message::text(create(&"x".repeat(8192)).to_string())).await;
    assert!(!matches!(socket.next().await, Some(Ok(Message::Text(_)))), "no answer to a dropped frame");
    assert_eq!(sim.requests().iter().filter(|r| r.method == "WS").count(), 0);
    sim.shutdown().await;
}

/// The edge answers the upgrade itself: a challenged account, an `x-sim` challenge or page on
/// the upgrade request, or a queued edge entry get that answer instead of 101.
#[tokio::test]
async fn the_edge_answers_the_upgrade_instead_of_101() {
    let (sim, tokens) = sim_with_openai("pro").await;
    sim.update_account("acct", AccountPatch { challenged: Some(true), ..Default::default() }).expect("account");
    match connect(&sim, &tokens, true).await {
        Err(WsError::Http(response)) => {
            assert_eq!(response.status(), 403);
            assert_eq!(response.headers()["cf-mitigated"], "challenge");
            let body = String::from_utf8(response.body().clone().unwrap_or_default()).expect("utf-8");
            assert!(body.contains("<title>Just a moment...</title>"));
        }
        other => panic!("expected a challenge, got {:?}", other.map(|_| ())),
    }
    let upgrade = sim.requests().pop().expect("the upgrade is recorded");
    assert_eq!(upgrade.method, "GET");
    assert!(upgrade.set_cookies[0].starts_with("__cf_bm="));
    sim.update_account("acct", AccountPatch { challenged: Some(false), ..Default::default() }).expect("account");

    match connect_with(&sim, &tokens, &[BETA, ("x-sim", "challenge=503")]).await {
        Err(WsError::Http(response)) => assert_eq!(response.status(), 503),
        other => panic!("expected a challenge, got {:?}", other.map(|_| ())),
    }
    sim.script("acct", "page=html status=522", 1).expect("account");
    match connect(&sim, &tokens, true).await {
        Err(WsError::Http(response)) => {
            assert_eq!(response.status(), 522);
            assert_eq!(response.headers()["server"], "cloudflare");
        }
        other => panic!("expected a 522 page, got {:?}", other.map(|_| ())),
    }
    match connect_with(&sim, &tokens, &[BETA, ("x-sim-reset-before-head", "1")]).await {
        Err(WsError::Io(error)) => assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset),
        other => panic!("expected a reset, got {:?}", other.map(|_| ())),
    }
    let mut socket = connect(&sim, &tokens, true).await.expect("a normal upgrade afterwards");
    send(&mut socket, create("hi")).await;
    assert_eq!(turn(&mut socket).await.last().expect("terminal")["type"], "response.completed");
    sim.shutdown().await;
}

#[tokio::test]
async fn set_cookie_goes_on_the_101() {
    let (sim, tokens) = sim_with_openai("pro").await;
    let (_socket, headers) =
        connect_with(&sim, &tokens, &[BETA, ("x-sim-set-cookie", "ws=1; Max-Age=60")]).await.expect("upgrade");
    assert_eq!(headers["set-cookie"], "ws=1; Max-Age=60");
    assert_eq!(sim.requests().pop().expect("recorded").set_cookies, ["ws=1; Max-Age=60"]);

    // A queued entry with cookies is the upgrade's; the rest of it is the first response's.
    sim.script("acct", "set_cookie='q=2|r=3' text=queued", 1).expect("account");
    let (mut socket, headers) = connect_with(&sim, &tokens, &[BETA]).await.expect("upgrade");
    let cookies: Vec<&str> = headers.get_all("set-cookie").iter().map(|v| v.to_str().expect("text")).collect();
    assert_eq!(cookies, ["q=2", "r=3"]);
    send(&mut socket, create("hi")).await;
    let completed = turn(&mut socket).await.pop().expect("terminal");
    assert_eq!(completed["response"]["output"][0]["content"][0]["text"], "queued");
    send(&mut socket, create("hi")).await;
    let completed = turn(&mut socket).await.pop().expect("terminal");
    assert_ne!(completed["response"]["output"][0]["content"][0]["text"], "queued");
    sim.shutdown().await;
}

#[tokio::test]
async fn stall_after_and_reset_before_head_on_a_socket() {
    let (sim, tokens) = sim_with_openai("pro").await;
    let mut socket = connect(&sim, &tokens, true).await.expect("upgrade");
    send(&mut socket, create("sim: stall_after=3")).await;
    for _ in 0..2 + 3 {
        next_json(&mut socket).await;
    }
    let silent = tokio::time::timeout(std::time::Duration::from_millis(300), socket.next()).await;
    assert!(silent.is_err(), "nothing more on the socket, no close: {silent:?}");
    drop(socket);

    let mut socket = connect(&sim, &tokens, true).await.expect("upgrade");
    sim.script("acct", "reset_before_head=1", 1).expect("account");
    send(&mut socket, create("hi")).await;
    match socket.next().await {
        Some(Err(WsError::Io(error))) => assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset),
        other => panic!("expected a reset before any frame, got {other:?}"),
    }
    sim.shutdown().await;
}

/// The edge sees only a socket's handshake: a queued challenge waits for the next request it
/// sees, and a frame's own `challenge` key does nothing.
#[tokio::test]
async fn an_open_socket_leaves_a_queued_challenge_to_the_next_request() {
    let (sim, tokens) = sim_with_openai("pro").await;
    let mut socket = connect(&sim, &tokens, true).await.expect("upgrade");
    sim.script("acct", "challenge=403", 1).expect("account");
    send(&mut socket, create("sim: challenge=403")).await;
    assert_eq!(turn(&mut socket).await.last().expect("terminal")["type"], "response.completed");
    let response = crate::support::post_codex(&sim, &tokens, &crate::support::codex_body("hi")).await;
    assert_eq!(response.status(), 403);
    assert_eq!(response.headers()["cf-mitigated"], "challenge");
    send(&mut socket, create("hi")).await;
    assert_eq!(turn(&mut socket).await.last().expect("terminal")["type"], "response.completed");
    sim.shutdown().await;
}
