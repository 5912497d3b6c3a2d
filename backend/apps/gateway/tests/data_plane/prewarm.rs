//! A prewarm on a client WebSocket whose upstream socket is refused (426): answered locally,
//! its next turn sent over HTTP with both inputs; the prewarms kept are budgeted in bytes.

use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use upstream_sim::AccountSpec;

use super::request_bodies::{Socket, next_event, ws_connect};
use crate::gateway::Gateway;

fn refusing() -> AccountSpec {
    AccountSpec { ws_refused: true, ..AccountSpec::openai("acct-a") }
}

fn message(role: &str, text: &str) -> Value {
    json!({"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]})
}

/// Sends `frame` and reads events up to the terminal one (or an error frame).
async fn turn(socket: &mut Socket, frame: Value) -> Vec<Value> {
    socket.send(Message::text(frame.to_string())).await.expect("send");
    let mut events = Vec::new();
    loop {
        let event = next_event(socket).await;
        let done = matches!(event["type"].as_str(), Some("response.completed" | "response.failed" | "error"));
        events.push(event);
        if done {
            return events;
        }
    }
}

async fn prewarm(socket: &mut Socket, padding: usize) -> String {
    let frame = json!({"type": "response.create", "model": "gpt-5.4", "store": false, "generate": false,
                       "instructions": "be brief", "input": [message("developer", &"d".repeat(padding))]});
    let events = turn(socket, frame).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1]["type"], "response.completed");
    events[0]["response"]["id"].as_str().expect("prewarm id").to_owned()
}

fn follow_up(previous: &str) -> Value {
    json!({"type": "response.create", "model": "gpt-5.4", "store": false, "previous_response_id": previous,
           "input": [message("user", "sim: text='hello'")]})
}

#[tokio::test]
async fn the_turn_after_a_local_prewarm_carries_both_inputs_over_http() {
    let gateway = Gateway::start(vec![refusing()]).await;
    let mut socket = ws_connect(&gateway).await;
    let id = prewarm(&mut socket, 10).await;
    let events = turn(&mut socket, follow_up(&id)).await;
    assert_eq!(events.last().expect("events")["type"], "response.completed", "{events:?}");
    let posts: Vec<_> = gateway
        .sim
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/codex/responses"))
        .collect();
    assert_eq!(posts.len(), 1, "the prewarm itself never went upstream");
    let sent: Value = serde_json::from_str(&posts[0].body).expect("json");
    assert_eq!(sent["instructions"], "be brief");
    assert_eq!(sent["input"], json!([message("developer", &"d".repeat(10)), message("user", "sim: text='hello'")]));
    assert!(sent.get("previous_response_id").is_none() && sent.get("generate").is_none() && sent.get("type").is_none());
}

#[tokio::test]
async fn a_prewarm_over_the_key_budget_is_not_kept_and_its_turn_asks_for_the_history() {
    let gateway =
        Gateway::start_with(vec![refusing()], &[("SWITCHBOARD_PROVIDERS_OPENAI_PREWARM_KEY_BUDGET_BYTES", "2048")])
            .await;
    let mut socket = ws_connect(&gateway).await;
    let id = prewarm(&mut socket, 4096).await;
    let events = turn(&mut socket, follow_up(&id)).await;
    let error = events.last().expect("events");
    assert_eq!(error["type"], "error", "{events:?}");
    assert_eq!(error["error"]["code"], "previous_response_not_found");
    // The client resends the full history, and that is served.
    let full = json!({"type": "response.create", "model": "gpt-5.4", "store": false,
                      "input": [message("developer", "d"), message("user", "sim: text='hello'")]});
    let events = turn(&mut socket, full).await;
    assert_eq!(events.last().expect("events")["type"], "response.completed", "{events:?}");
}
