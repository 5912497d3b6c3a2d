//! Turns over HTTP (SSE) and over a client WebSocket.

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Http,
    Websocket,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Continued,
    PreviousResponseNotFound,
    Other(String),
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A first response, with the socket it came on (kept open for a same-socket second turn).
pub struct Opened {
    pub response_id: String,
    /// The first turn's socket and the gateway URL it is connected to.
    pub socket: Option<(String, std::sync::Arc<tokio::sync::Mutex<Socket>>)>,
}

impl Clone for Opened {
    fn clone(&self) -> Self {
        Self { response_id: self.response_id.clone(), socket: None }
    }
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Opened({})", self.response_id)
    }
}

fn request(text: &str, previous: Option<&str>) -> Value {
    let mut body = json!({
        "model": "gpt-5.4",
        "store": false,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": format!("sim: text='{text}'")}]}],
    });
    if let Some(previous) = previous {
        body["previous_response_id"] = json!(previous);
    }
    body
}

async fn ws_connect(url: &str, key: &str) -> Socket {
    let ws_url = url.replacen("http://", "ws://", 1) + "/v1/responses";
    let mut request = ws_url.into_client_request().expect("request");
    request.headers_mut().insert("authorization", format!("Bearer {key}").parse().expect("header"));
    request.headers_mut().insert("openai-beta", "responses_websockets=2026-02-06".parse().expect("header"));
    tokio_tungstenite::connect_async(request).await.expect("websocket connects").0
}

/// Sends one `response.create` and reads events until the terminal one.
async fn ws_turn(socket: &mut Socket, body: Value) -> Vec<Value> {
    let mut frame = body;
    frame["type"] = json!("response.create");
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

async fn http_turn(url: &str, key: &str, body: Value) -> Vec<Value> {
    let mut body = body;
    body["stream"] = json!(true);
    let response = reqwest::Client::new()
        .post(format!("{url}/v1/responses"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .expect("sent");
    if response.status() != 200 {
        let error: Value = response.json().await.expect("json error");
        return vec![json!({"type": "error", "error": error["error"]})];
    }
    let text = response.text().await.expect("body");
    crate::data_plane::events(&text).into_iter().map(|(_, data)| data).collect()
}

pub async fn first_turn(url: &str, key: &str, transport: Transport) -> Opened {
    let body = request("first", None);
    let (events, socket) = match transport {
        Transport::Http => (http_turn(url, key, body).await, None),
        Transport::Websocket => {
            let mut socket = ws_connect(url, key).await;
            let events = ws_turn(&mut socket, body).await;
            (events, Some((url.to_owned(), std::sync::Arc::new(tokio::sync::Mutex::new(socket)))))
        }
    };
    let last = events.last().expect("events");
    assert_eq!(last["type"], "response.completed", "first turn over {transport:?}: {last}");
    Opened { response_id: last["response"]["id"].as_str().expect("id").to_owned(), socket }
}

/// The second turn, continuing `opened`. Over a WebSocket it uses the first turn's own socket
/// when it is still at hand and on this URL, else a new socket.
pub async fn next_turn(url: &str, key: &str, transport: Transport, opened: Opened) -> Outcome {
    let body = request("second", Some(&opened.response_id));
    let events = match (transport, opened.socket) {
        (Transport::Http, _) => http_turn(url, key, body).await,
        (Transport::Websocket, Some((socket_url, socket))) if socket_url == url => {
            let mut socket = socket.lock().await;
            ws_turn(&mut socket, body).await
        }
        (Transport::Websocket, _) => {
            let mut socket = ws_connect(url, key).await;
            ws_turn(&mut socket, body).await
        }
    };
    let last = events.last().cloned().unwrap_or(Value::Null);
    match last["type"].as_str() {
        Some("response.completed") => {
            let text: String = events.iter().filter_map(|e| e["delta"].as_str()).collect();
            if text == "second" { Outcome::Continued } else { Outcome::Other(format!("answered {text:?}")) }
        }
        Some("error") if last["error"]["code"] == "previous_response_not_found" => Outcome::PreviousResponseNotFound,
        _ => Outcome::Other(last.to_string()),
    }
}
