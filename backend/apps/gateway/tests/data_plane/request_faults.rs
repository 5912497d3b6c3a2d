//! A failure caused by the request never touches an account: the client gets the error, no other
//! account is tried, and no cooldown or model exclusion is set (issue 13). Infrastructure
//! failures move to another account without blaming the one that met them.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use gateway_core::coordination::{CircuitState, Cooldowns, ProviderCircuits};
use gateway_core::domain::{AccountId, ProviderKind};
use serde_json::{Value, json};
use sqlx::Row;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use upstream_sim::{AccountSpec, SettingsPatch};

use super::{coordination, make_sticky};
use crate::gateway::{Gateway, terminal_rows};

async fn two_accounts() -> Gateway {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")]).await;
    make_sticky(&gateway).await;
    gateway
}

async fn account_ids(gateway: &Gateway) -> Vec<AccountId> {
    let rows = sqlx::query("SELECT id FROM provider_accounts ORDER BY id")
        .fetch_all(&gateway.pool().await)
        .await
        .expect("accounts");
    rows.iter().map(|r| AccountId(r.get::<i64, _>("id"))).collect()
}

/// No account cools down and none is excluded for any model.
async fn assert_pool_untouched(gateway: &Gateway) {
    let redis = coordination(gateway);
    let ids = account_ids(gateway).await;
    let cooldowns = redis.cooldowns(&ids).await.expect("cooldowns");
    assert!(cooldowns.iter().all(Option::is_none), "no account cools down: {cooldowns:?}");
    for id in ids {
        let excluded = redis.model_exclusions(id).await.expect("exclusions");
        assert!(excluded.is_empty(), "account {id} is excluded for nothing: {excluded:?}");
    }
}

/// Inference calls of `account`: HTTP posts and WebSocket frames (not the upgrades).
fn inference_calls(gateway: &Gateway, account: &str) -> usize {
    gateway
        .sim
        .requests()
        .iter()
        .filter(|r| {
            let call = r.method == "WS" || (r.method == "POST" && r.path.ends_with("/codex/responses"));
            call && r.account_id.as_deref() == Some(account)
        })
        .count()
}

async fn attempts_of(gateway: &Gateway, rows: i64) -> Vec<usize> {
    terminal_rows(&gateway.pool().await, rows)
        .await
        .iter()
        .map(|row| row.get::<Value, _>("attempts").as_array().map_or(0, Vec::len))
        .collect()
}

#[tokio::test]
async fn an_upstream_refusal_of_the_body_touches_no_account() {
    let gateway = two_accounts().await;
    let cases = [
        ("status=400 message='Invalid input item'", 400, "invalid_request"),
        ("status=413 message='Request too large'", 413, "request_too_large"),
        ("status=422 code=invalid_value message='Invalid input'", 422, "invalid_value"),
    ];
    for (i, (directive, status, code)) in cases.iter().enumerate() {
        gateway.sim.script("acct-a", directive, 1).expect("script");
        let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
        assert_eq!(response.status(), *status, "{directive}");
        let body: Value = response.json().await.expect("OpenAI error shape");
        assert_eq!(body["error"]["code"], *code, "{directive}: {body}");
        assert_eq!(body["error"]["type"], "invalid_request_error");
        assert_eq!(inference_calls(&gateway, "acct-a"), i + 1, "{directive}: one attempt");
        assert_eq!(inference_calls(&gateway, "acct-b"), 0, "{directive}: no other account is tried");
    }
    assert_eq!(attempts_of(&gateway, 3).await, vec![1, 1, 1], "one attempt per refused request");
    assert_pool_untouched(&gateway).await;
    // The provider circuit heard three answers from a healthy upstream, no failure.
    let redis = coordination(&gateway);
    let circuit = test_support::wait_until("the releases to reach the circuit", Duration::from_secs(30), || async {
        redis.circuit(ProviderKind::Openai).await.ok().filter(|c| c.total_successes >= 3)
    })
    .await
    .expect("circuit outcomes recorded");
    assert_eq!((circuit.total_failures, circuit.state), (0, CircuitState::Closed), "{circuit:?}");
    // The same pool serves the next request, starting with the same first account.
    let next = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(next.status(), 200);
    next.bytes().await.expect("body");
    assert_eq!(inference_calls(&gateway, "acct-a"), 4);
}

#[tokio::test]
async fn a_server_error_moves_on_without_cooling_the_account_down() {
    let gateway = two_accounts().await;
    gateway.sim.script("acct-a", "status=500", 1).expect("script");
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 200, "served by the next account");
    response.bytes().await.expect("body");
    assert_eq!((inference_calls(&gateway, "acct-a"), inference_calls(&gateway, "acct-b")), (1, 1));
    assert_pool_untouched(&gateway).await;
    // Sticky stays on the last used account (acct-b); when it fails too, acct-a — not cooled
    // down by its 500 — serves again at once.
    gateway.sim.script("acct-b", "status=500", 1).expect("script");
    let next = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(next.status(), 200);
    next.bytes().await.expect("body");
    assert_eq!(
        (inference_calls(&gateway, "acct-a"), inference_calls(&gateway, "acct-b")),
        (2, 2),
        "the last used account first, then the first account serves again at once"
    );
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn client_socket(gateway: &Gateway) -> Socket {
    let url = gateway.url.replacen("http://", "ws://", 1) + "/v1/responses";
    let mut request = url.into_client_request().expect("request");
    request.headers_mut().insert("authorization", format!("Bearer {}", gateway.key).parse().expect("header"));
    tokio_tungstenite::connect_async(request).await.expect("websocket connects").0
}

/// One `response.create` on a client socket; the events until the terminal one (or an error).
async fn turn(socket: &mut Socket, text: &str) -> Vec<Value> {
    let frame = json!({
        "type": "response.create",
        "model": "gpt-5.4",
        "store": false,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}],
    });
    socket.send(Message::text(frame.to_string())).await.expect("send");
    let mut events = Vec::new();
    while let Some(message) = socket.next().await {
        let Ok(Message::Text(text)) = message else { continue };
        let event: Value = serde_json::from_str(text.as_str()).expect("json event");
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        events.push(event);
        if matches!(kind.as_str(), "response.completed" | "response.failed" | "error") {
            break;
        }
    }
    events
}

#[tokio::test]
async fn an_upstream_close_1009_is_the_requests_fault() {
    let gateway = two_accounts().await;
    gateway.sim.update_settings(SettingsPatch { ws_max_message_bytes: Some(64 * 1024), ..SettingsPatch::default() });
    let mut socket = client_socket(&gateway).await;
    let events = turn(&mut socket, &"x".repeat(100 * 1024)).await;
    let last = events.last().expect("an answer");
    assert_eq!(last["type"], "error", "{last}");
    assert_eq!(last["status"], 413, "{last}");
    assert_eq!(last["error"]["code"], "request_too_large", "{last}");
    assert_eq!((inference_calls(&gateway, "acct-a"), inference_calls(&gateway, "acct-b")), (1, 0));
    assert_pool_untouched(&gateway).await;
    // The same client socket goes on with the same account.
    let events = turn(&mut socket, "small").await;
    assert_eq!(events.last().expect("events")["type"], "response.completed");
    assert_eq!((inference_calls(&gateway, "acct-a"), inference_calls(&gateway, "acct-b")), (2, 0));
}

#[tokio::test]
async fn an_upstream_socket_that_drops_a_large_frame_falls_back_to_http_on_the_same_account() {
    let gateway = two_accounts().await;
    // The upstream socket drops frames above 16 KiB at their header, mid-send: smaller than the
    // fragments a large message is sent in (`FRAGMENT_BYTES`, 64 KiB).
    gateway.sim.update_settings(SettingsPatch { ws_max_frame_bytes: Some(16 * 1024), ..SettingsPatch::default() });
    let mut socket = client_socket(&gateway).await;
    let events = turn(&mut socket, &"y".repeat(12 << 20)).await;
    let last = events.last().expect("an answer");
    assert_eq!(last["type"], "response.completed", "{last}");
    let http_calls =
        gateway.sim.requests().iter().filter(|r| r.method == "POST" && r.path.ends_with("/codex/responses")).count();
    assert_eq!(http_calls, 1, "served over HTTP SSE");
    assert!(gateway.log().contains("did not take the frame"), "the send failed mid-frame and fell back");
    assert_eq!(inference_calls(&gateway, "acct-b"), 0, "no other account is tried");
    assert_pool_untouched(&gateway).await;
}

#[tokio::test]
async fn a_websocket_refusal_of_a_feature_excludes_no_model() {
    let gateway = two_accounts().await;
    let mut socket = client_socket(&gateway).await;
    let refusal = "sim: status=400 message=\"The 'web_search' tool is not supported with this model.\"";
    let events = turn(&mut socket, refusal).await;
    let last = events.last().expect("an answer");
    assert_eq!(last["type"], "error", "{last}");
    assert_eq!(last["status"], 400, "{last}");
    assert_eq!((inference_calls(&gateway, "acct-a"), inference_calls(&gateway, "acct-b")), (1, 0));
    assert_pool_untouched(&gateway).await;
}
