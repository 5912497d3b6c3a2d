//! `GET {base}/codex/responses` upgraded to a WebSocket (PROTOCOL C): `response.create` frames,
//! prewarm (`generate: false`), per-socket `previous_response_id`, `codex.rate_limits` and
//! `codex.response.metadata` events, the connection-age limit, one response at a time.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Request, State};
use axum::response::IntoResponse;
use axum::response::Response;
use http::{HeaderMap, StatusCode, Uri};
use serde_json::{Value, json};

use crate::account::Account;
use crate::codex::{
    answer_headers, authorize, deactivated_body, rate_limits_event, scripted_error_body, usage_limit_body, validate,
};
use crate::conn::ConnControl;
use crate::edge::{self, Arrival, cookie::with_set_cookies};
use crate::request::{ViaTls, json_response_with};
use crate::script::{Directive, tool_output_after_last_user};
use crate::state::SimState;
use crate::stream::{Delivery, Fault};
use crate::template::Ids;
use crate::turn::{End, Flavor, TurnSpec};

/// The beta header value that selects Responses over WebSocket.
pub const BETA: &str = "responses_websockets=2026-02-06";

pub async fn upgrade(
    State(state): State<Arc<SimState>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
    request: Request,
) -> Response {
    let uri = crate::request::original_uri(&request);
    let (parts, _) = request.into_parts();
    let authorized = authorize(&state, &parts.headers);
    let account_id = match &authorized {
        Ok(account) => Some(account.id.clone()),
        Err((account, _)) => account.as_ref().map(|a| a.id.clone()),
    };
    let seq = state.record("GET", &uri, &parts.headers, b"", account_id);
    let response = answer_upgrade(state.clone(), upgrade, uri, parts, authorized).await;
    state.record_set_cookies(seq, response.headers());
    response
}

/// The upgrade's answer: the edge's (challenge, page, reset; from the `x-sim*` headers of the
/// upgrade or the front of the account's script), a refusal, or 101 with the directive's cookies.
async fn answer_upgrade(
    state: Arc<SimState>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
    uri: Uri,
    parts: http::request::Parts,
    authorized: Result<Account, (Option<Account>, Response)>,
) -> Response {
    let control = parts.extensions.get::<Arc<ConnControl>>().cloned();
    let arrival = Arrival { control: control.as_ref(), tls: parts.extensions.get::<ViaTls>().is_some() };
    let token_account = match &authorized {
        Ok(account) => Some(account),
        Err((account, _)) => account.as_ref(),
    };
    // Frames report an invalid header directive; the upgrade only looks for edge keys in it.
    let own = Directive::from_headers(&parts.headers).ok();
    if let Some(response) = edge::intercept(&state, token_account, own.as_ref(), arrival).await {
        return response;
    }
    let account = match authorized {
        Ok(account) => account,
        Err((_, response)) => return response,
    };
    let headers = answer_headers(&state, Some(&account), &parts.headers);
    if let Some(refusal) = refusal(&state, &account, &parts.headers, &headers) {
        return refusal;
    }
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(rejection) => {
            let mut response = rejection.into_response();
            response.headers_mut().extend(headers);
            return response;
        }
    };
    // A queued entry setting cookies is this upgrade's: its cookies go on the 101 and the rest
    // of it is the socket's first response's directive.
    let pending = state.pop_script_if(&account.id, |d| d.set_cookie.is_some());
    let cookies: Vec<String> =
        [own.as_ref(), pending.as_ref()].into_iter().flatten().filter_map(|d| d.set_cookie.clone()).flatten().collect();
    let socket_state = Socket {
        state: state.clone(),
        account_id: account.id.clone(),
        headers: parts.headers.clone(),
        uri,
        control,
        born: Instant::now(),
        last: None,
        pending,
    };
    // Frames above the frame limit fail at their header (the connection drops mid-send); the
    // message limit is checked once a message is read (close 1009).
    let settings = state.settings();
    let upgrade = upgrade
        .max_frame_size(settings.ws_max_frame_bytes)
        .max_message_size(settings.ws_max_message_bytes.max(settings.ws_max_frame_bytes).max(64 << 20));
    let mut response = upgrade.on_upgrade(move |socket| socket_state.run(socket));
    response.headers_mut().extend(headers);
    with_set_cookies(response, Some(&cookies))
}

/// Why the backend refuses the upgrade: no `OpenAI-Beta`, an account with `ws_refused` (426),
/// another account's installation or session id (403).
fn refusal(state: &SimState, account: &Account, request: &HeaderMap, headers: &HeaderMap) -> Option<Response> {
    let beta_ok = request
        .get_all("openai-beta")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').any(|item| item.trim().starts_with("responses_websockets=")));
    if !beta_ok || account.ws_refused {
        let detail = if beta_ok {
            "WebSocket transport is not available for this account"
        } else {
            "Upgrade Required: missing OpenAI-Beta: responses_websockets"
        };
        return Some(json_response_with(StatusCode::UPGRADE_REQUIRED, &json!({"detail": detail}), headers.clone()));
    }
    if let Err(mismatch) = crate::codex::check_installation(state, account, request, None) {
        let body = crate::codex::installation_mismatch_body(&mismatch);
        return Some(json_response_with(StatusCode::FORBIDDEN, &body, headers.clone()));
    }
    None
}

/// The response kept in memory on a socket.
struct Last {
    id: String,
    directive: Directive,
}

struct Socket {
    state: Arc<SimState>,
    account_id: String,
    headers: HeaderMap,
    uri: Uri,
    control: Option<Arc<ConnControl>>,
    born: Instant,
    last: Option<Last>,
    /// The script entry the upgrade took (it set the 101's cookies): the first response's.
    pending: Option<Directive>,
}

/// What the loop does after a frame.
enum Next {
    Continue,
    /// Close with a close frame.
    Close,
    /// Drop the socket without a close frame (optionally with a TCP reset).
    Abort,
}

impl Socket {
    async fn run(mut self, mut socket: WebSocket) {
        let shutdown = self.state.shutdown.clone();
        loop {
            let message = tokio::select! {
                () = shutdown.cancelled() => return,
                message = socket.recv() => message,
            };
            let next = match message {
                Some(Ok(Message::Text(text))) => self.on_text(&mut socket, text).await,
                Some(Ok(Message::Binary(_))) => {
                    let frame = error_frame(
                        400,
                        "invalid_request_error",
                        "binary_not_supported",
                        "Binary frames are not supported",
                        None,
                    );
                    send(&mut socket, frame).await
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => Next::Continue,
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
            };
            match next {
                Next::Continue => {}
                Next::Close => {
                    let _ = socket
                        .send(Message::Close(Some(CloseFrame { code: 1000, reason: Utf8Bytes::from_static("") })))
                        .await;
                    return;
                }
                Next::Abort => return,
            }
        }
    }

    async fn on_text(&mut self, socket: &mut WebSocket, text: Utf8Bytes) -> Next {
        self.state.record("WS", &self.uri, &self.headers, text.as_bytes(), Some(self.account_id.clone()));
        if text.len() > self.state.settings().ws_max_message_bytes {
            let close = CloseFrame { code: 1009, reason: Utf8Bytes::from_static("message too big") };
            let _ = socket.send(Message::Close(Some(close))).await;
            return Next::Abort;
        }
        let frame: Value = match serde_json::from_str(text.as_str()) {
            Ok(frame) => frame,
            Err(error) => {
                let frame =
                    error_frame(400, "invalid_request_error", "invalid_json", &format!("Invalid JSON: {error}"), None);
                return send(socket, frame).await;
            }
        };
        match frame.get("type").and_then(Value::as_str) {
            Some("response.create") => self.on_create(socket, &frame).await,
            Some("response.processed") => Next::Continue,
            other => {
                let message = format!("Unsupported message type: {}", other.unwrap_or("<missing>"));
                send(
                    socket,
                    error_frame(400, "invalid_request_error", "unsupported_message_type", &message, Some("type")),
                )
                .await
            }
        }
    }

    async fn on_create(&mut self, socket: &mut WebSocket, frame: &Value) -> Next {
        let settings = self.state.settings();
        if self.born.elapsed() >= Duration::from_secs(settings.ws_max_age_secs) {
            let minutes = settings.ws_max_age_secs / 60;
            let message = format!(
                "Responses websocket connection limit reached ({minutes} minutes). Create a new websocket connection to continue."
            );
            let _ = send(
                socket,
                error_frame(400, "invalid_request_error", "websocket_connection_limit_reached", &message, None),
            )
            .await;
            return Next::Close;
        }
        let Some(account) = self.state.account(&self.account_id) else {
            return send(socket, with_status(401, json!({"detail": "Unauthorized"}))).await;
        };
        if let Err(mismatch) = crate::codex::check_installation(&self.state, &account, &HeaderMap::new(), Some(frame)) {
            return send(socket, error_frame(403, "invalid_request_error", mismatch.code, mismatch.message, None))
                .await;
        }
        if account.banned {
            let mut frame = deactivated_body();
            frame["type"] = json!("error");
            frame["status"] = json!(401);
            let _ = send(socket, frame).await;
            return Next::Close;
        }
        let own =
            match Directive::from_body(frame).and_then(|d| Ok(d.overlay(&Directive::from_headers(&self.headers)?))) {
                Ok(directive) => directive,
                Err(message) => {
                    return send(
                        socket,
                        error_frame(400, "invalid_request_error", "invalid_sim_directive", &message, None),
                    )
                    .await;
                }
            };
        let previous = frame.get("previous_response_id").and_then(Value::as_str);
        let inherited = match (previous, &self.last) {
            (None, _) => Directive::default(),
            (Some(id), Some(last)) if last.id == id => last.directive.clone(),
            (Some(id), _) => {
                let message = format!("Previous response with id '{id}' not found.");
                let frame = error_frame(
                    400,
                    "invalid_request_error",
                    "previous_response_not_found",
                    &message,
                    Some("previous_response_id"),
                );
                return send(socket, frame).await;
            }
        };
        let mut directive = inherited.overlay(&own);
        if let Some(queued) = self.pending.take().or_else(|| self.state.pop_socket_script(&self.account_id)) {
            directive = directive.overlay(&queued);
        }
        let prewarm = frame.get("generate") == Some(&Value::Bool(false));
        if directive.reset_before_head == Some(true) {
            // The frame was read and recorded; the connection dies before any answer frame.
            if let Some(control) = &self.control {
                control.request_reset();
            }
            return Next::Abort;
        }
        if let Some(status) = directive.status.filter(|_| !prewarm) {
            return send(socket, self.scripted_error(status, &directive, &account)).await;
        }
        let model = match validate(frame, &account.plan, true) {
            Ok(model) => model,
            Err(message) => {
                let frame = error_frame(400, "invalid_request_error", "invalid_request", &message, None);
                return send(socket, frame).await;
            }
        };
        let account = if prewarm {
            account
        } else {
            match self.state.admit(&self.account_id) {
                Ok(account) => account,
                Err(account) => return send(socket, self.usage_limit_frame(&account)).await,
            }
        };
        if let Some(ms) = directive.header_delay_ms.filter(|_| !prewarm) {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        if let Next::Abort = send(socket, rate_limits_event(&account)).await {
            return Next::Abort;
        }
        let metadata = json!({"type": "codex.response.metadata", "headers": {
            "openai-model": model,
            "x-models-etag": settings.models_etag,
            "x-codex-plan-type": account.plan,
        }});
        if let Next::Abort = send(socket, metadata).await {
            return Next::Abort;
        }
        let tool_output = tool_output_after_last_user(frame);
        let spec = TurnSpec::resolve(Flavor::Codex, &model, false, &directive, tool_output.as_deref(), prewarm);
        let template = self.state.turns.get_or_build(&spec, || spec.build());
        let ids = Ids::fresh();
        let delivery = if prewarm { Delivery::default() } else { Delivery::from_directive(&directive) };
        for (index, event) in template.events.iter().enumerate() {
            let index = index as u32;
            match delivery.fault_at(index) {
                Some(Fault::Cut) => return Next::Close,
                Some(Fault::Drop) => return Next::Abort,
                Some(Fault::Reset) => {
                    if let Some(control) = &self.control {
                        control.request_reset();
                    }
                    return Next::Abort;
                }
                Some(Fault::Stall) => return stall(socket, &self.state).await,
                None => {}
            }
            let pause = delivery.pause_before(index);
            if !pause.is_zero() {
                tokio::time::sleep(pause).await;
            }
            let Ok(text) = Utf8Bytes::try_from(event.json.render(&ids)) else { return Next::Abort };
            if socket.send(Message::Text(text)).await.is_err() {
                return Next::Abort;
            }
        }
        self.last = match spec.end {
            End::Completed => Some(Last { id: ids.with_prefix("resp_"), directive }),
            _ => None,
        };
        Next::Continue
    }

    fn scripted_error(&self, status: u16, directive: &Directive, account: &Account) -> Value {
        if status == 429 && directive.code.as_deref().is_none_or(|c| c == "usage_limit_reached") {
            return self.usage_limit_frame(account);
        }
        let body = scripted_error_body(status, directive, account);
        match body.get("error") {
            Some(error) => json!({"type": "error", "status": status, "error": error}),
            None => {
                let message = body.get("detail").cloned().unwrap_or(Value::Null);
                json!({"type": "error", "status": status, "error": {"type": "invalid_request_error", "message": message}})
            }
        }
    }

    fn usage_limit_frame(&self, account: &Account) -> Value {
        let mut headers = HeaderMap::new();
        crate::codex::rate_limit_headers(account, &mut headers);
        let headers: serde_json::Map<String, Value> = headers
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), json!(value.to_str().unwrap_or_default())))
            .collect();
        let error = usage_limit_body(account)["error"].clone();
        json!({"type": "error", "status": 429, "error": error, "headers": headers})
    }
}

/// Sends nothing more: reads (and drops) the client's frames until it goes away or the
/// simulator shuts down.
async fn stall(socket: &mut WebSocket, state: &SimState) -> Next {
    loop {
        tokio::select! {
            () = state.shutdown.cancelled() => return Next::Abort,
            message = socket.recv() => match message {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return Next::Abort,
                Some(Ok(_)) => {}
            },
        }
    }
}

fn with_status(status: u16, body: Value) -> Value {
    json!({"type": "error", "status": status, "error": {"type": "invalid_request_error", "message": body.get("detail")}})
}

/// An `{"type":"error", …}` frame.
pub fn error_frame(status: u16, kind: &str, code: &str, message: &str, param: Option<&str>) -> Value {
    json!({
        "type": "error",
        "status": status,
        "error": {"type": kind, "code": code, "message": message, "param": param},
    })
}

async fn send(socket: &mut WebSocket, frame: Value) -> Next {
    match socket.send(Message::Text(Utf8Bytes::from(frame.to_string()))).await {
        Ok(()) => Next::Continue,
        Err(_) => Next::Abort,
    }
}
