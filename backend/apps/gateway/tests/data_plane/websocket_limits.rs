//! A client WebSocket has the HTTP body limit: a larger message gets the error frame 413
//! `request_too_large` and close 1009, whether tungstenite read it whole (a little over) or
//! refused it from its frame header (far over).

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use upstream_sim::AccountSpec;

use super::request_bodies::{Socket, next_event, ws_connect};
use crate::gateway::Gateway;

const LIMIT: usize = 64 * 1024;

/// A `response.create` of exactly `size` bytes.
fn frame_of(size: usize) -> String {
    let head =
        json!({"type": "response.create", "model": "gpt-5.4", "store": false, "input": "sim: text='ok'", "x_pad": ""})
            .to_string();
    let pad = size.checked_sub(head.len()).expect("room for the head");
    head.replacen(r#""x_pad":"""#, &format!(r#""x_pad":"{}""#, "p".repeat(pad)), 1)
}

/// Sends `text` while reading: the error frame and the close code that follow.
async fn refused(socket: Socket, text: String) -> (Value, Option<CloseCode>) {
    let (mut sink, mut stream) = socket.split();
    // The send may not finish (the gateway stops reading a frame it refuses): read meanwhile.
    let sending = tokio::spawn(async move {
        let _ = sink.send(Message::text(text)).await;
        sink
    });
    let mut error = Value::Null;
    let mut close = None;
    let read = async {
        while let Some(Ok(message)) = stream.next().await {
            match message {
                Message::Text(text) => error = serde_json::from_str(text.as_str()).expect("json frame"),
                Message::Close(frame) => {
                    close = frame.map(|f| f.code);
                    break;
                }
                _ => {}
            }
        }
    };
    // Generous for a loaded machine; a gateway that never closes fails here instead of hanging.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(30), read).await;
    sending.abort();
    (error, close)
}

fn assert_too_large(error: &Value) {
    assert_eq!(error["type"], "error", "{error}");
    assert_eq!(error["status"], 413, "{error}");
    assert_eq!(error["error"]["code"], "request_too_large", "{error}");
}

#[tokio::test]
async fn websocket_messages_have_the_http_body_limit() {
    let limit = LIMIT.to_string();
    let gateway = Gateway::start_with(
        vec![AccountSpec::openai("acct-a")],
        &[("SWITCHBOARD_SERVER_REQUEST_BODY_LIMIT_BYTES", &limit)],
    )
    .await;

    // At the limit: served.
    let mut socket = ws_connect(&gateway).await;
    socket.send(Message::text(frame_of(LIMIT))).await.expect("send");
    loop {
        let event = next_event(&mut socket).await;
        assert_ne!(event["type"], "error", "{event}");
        if event["type"] == "response.completed" {
            break;
        }
    }

    // One byte over, on the same socket: refused and closed with 1009.
    let (error, close) = refused(socket, frame_of(LIMIT + 1)).await;
    assert_too_large(&error);
    assert_eq!(close, Some(CloseCode::Size));

    // Far over (beyond what tungstenite reads whole): the same answer.
    let (error, close) = refused(ws_connect(&gateway).await, frame_of(LIMIT + (2 << 20))).await;
    assert_too_large(&error);
    assert_eq!(close, Some(CloseCode::Size));

    let served = gateway.sim.requests().iter().filter(|r| r.method == "WS").count();
    assert_eq!(served, 1, "only the message within the limit reached upstream");
}
