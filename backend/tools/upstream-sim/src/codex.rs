//! The ChatGPT Codex backend (`{codex_base_path}`, default `/backend-api`): Responses over HTTP
//! SSE and WebSocket, the model catalogue, usage and compaction. Shared here: authentication,
//! the `x-codex-*` headers every answer carries, and the backend's error bodies. Answers are
//! compressed when the request asks (`compress.rs`).

pub mod catalog;
pub mod compact;
pub mod responses;
pub mod usage;
pub mod websocket;

use std::sync::Arc;

use axum::Router;
use axum::response::Response;
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use crate::account::{Account, Provider};
use crate::ids::{now_unix, token};
use crate::request::{bearer, json_response_with, set_header};
use crate::script::Directive;
use crate::state::{AuthFailure, SimState};

/// Routes relative to the backend base path.
pub fn router(state: Arc<SimState>) -> Router<Arc<SimState>> {
    Router::new()
        .route("/codex/responses", post(responses::create).get(websocket::upgrade))
        .route("/codex/responses/compact", post(compact::compact))
        .route("/codex/models", get(catalog::models))
        .route("/wham/usage", get(usage::usage))
        .route("/api/codex/usage", get(usage::usage))
        .layer(axum::middleware::from_fn_with_state(state, crate::compress::compress_answers))
}

/// Headers on every Codex answer: request id, turn state, models etag, and the account's
/// rate-limit headers when the account is known.
pub fn answer_headers(state: &SimState, account: Option<&Account>, request: &HeaderMap) -> HeaderMap {
    let mut headers = HeaderMap::new();
    set_header(&mut headers, "x-request-id", token("req_"));
    let turn_state = request
        .get("x-codex-turn-state")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .unwrap_or_else(|| token("ts_"));
    set_header(&mut headers, "x-codex-turn-state", turn_state);
    set_header(&mut headers, "x-models-etag", state.settings().models_etag);
    if let Some(account) = account {
        rate_limit_headers(account, &mut headers);
    }
    headers
}

/// The B.9 header family for an account.
pub fn rate_limit_headers(account: &Account, headers: &mut HeaderMap) {
    let now = now_unix();
    for (name, window) in [("primary", &account.primary), ("secondary", &account.secondary)] {
        let prefix = format!("x-codex-{name}");
        let pairs = [
            ("used-percent", format!("{}", window.used_percent)),
            ("window-minutes", window.window_minutes.to_string()),
            ("reset-at", window.reset_at.to_string()),
            ("reset-after-seconds", window.reset_after_seconds(now).to_string()),
            ("over-secondary-limit-percent", "0".to_owned()),
        ];
        for (suffix, value) in pairs {
            if let (Ok(name), Ok(value)) =
                (http::HeaderName::try_from(format!("{prefix}-{suffix}")), http::HeaderValue::try_from(value))
            {
                headers.insert(name, value);
            }
        }
    }
    let py_bool = |b: bool| if b { "True" } else { "False" };
    set_header(headers, "x-codex-credits-has-credits", py_bool(account.has_credits));
    set_header(headers, "x-codex-credits-unlimited", py_bool(account.unlimited));
    set_header(headers, "x-codex-credits-balance", &account.balance);
    set_header(headers, "x-codex-plan-type", &account.plan);
}

/// The `codex.rate_limits` WebSocket event for an account.
pub fn rate_limits_event(account: &Account) -> Value {
    let now = now_unix();
    let window = |w: &crate::account::Window| {
        json!({
            "used_percent": w.used_percent,
            "window_minutes": w.window_minutes,
            "reset_after_seconds": w.reset_after_seconds(now),
            "reset_at": w.reset_at,
        })
    };
    let limit_reached = account.exhausted_window().is_some();
    json!({
        "type": "codex.rate_limits",
        "plan_type": account.plan,
        "rate_limits": {
            "allowed": !limit_reached,
            "limit_reached": limit_reached,
            "primary": window(&account.primary),
            "secondary": window(&account.secondary),
        },
        "credits": {"has_credits": account.has_credits, "unlimited": account.unlimited, "balance": account.balance},
        "metered_limit_name": "codex",
        "code_review_rate_limits": null,
        "additional_rate_limits": null,
    })
}

/// Checks the bearer token and `ChatGPT-Account-ID`. The error is a ready answer.
pub fn authorize(state: &SimState, headers: &HeaderMap) -> Result<Account, (Option<Account>, Response)> {
    let unauthorized = |account: Option<&Account>, reason: &str| {
        let mut out = answer_headers(state, account, headers);
        set_header(&mut out, "x-openai-authorization-error", reason);
        let error_json = json!({"error": {"code": reason}}).to_string();
        set_header(&mut out, "x-error-json", STANDARD.encode(error_json));
        json_response_with(StatusCode::UNAUTHORIZED, &json!({"detail": "Unauthorized"}), out)
    };
    let Some(token) = bearer(headers) else {
        return Err((None, unauthorized(None, "missing_authorization")));
    };
    let account = match state.authenticate(token, Provider::Openai) {
        Ok(account) => account,
        Err(AuthFailure::Unknown) => return Err((None, unauthorized(None, "token_invalid"))),
        Err(AuthFailure::Expired(account)) => {
            let response = unauthorized(Some(&account), "token_expired");
            return Err((Some(*account), response));
        }
    };
    if let Some(claimed) = headers.get("chatgpt-account-id").and_then(|v| v.to_str().ok())
        && claimed != account.id
    {
        let body = json!({"detail": "ChatGPT-Account-ID does not match the access token's account."});
        let response = json_response_with(StatusCode::FORBIDDEN, &body, answer_headers(state, Some(&account), headers));
        return Err((Some(account), response));
    }
    if account.banned {
        let response = json_response_with(
            StatusCode::UNAUTHORIZED,
            &deactivated_body(),
            answer_headers(state, Some(&account), headers),
        );
        return Err((Some(account), response));
    }
    Ok(account)
}

/// The installation ids a request names: the `x-codex-installation-id` header and every
/// `client_metadata` member naming an installation id.
pub fn installation_ids(headers: &HeaderMap, body: Option<&Value>) -> Vec<String> {
    let mut ids: Vec<String> =
        headers.get_all("x-codex-installation-id").iter().filter_map(|v| v.to_str().ok().map(str::to_owned)).collect();
    if let Some(Value::Object(metadata)) = body.and_then(|b| b.get("client_metadata")) {
        for (key, value) in metadata {
            let key = key.to_ascii_lowercase().replace(['-', '_'], "");
            if key.contains("installationid")
                && let Some(id) = value.as_str()
            {
                ids.push(id.to_owned());
            }
        }
    }
    ids
}

/// The session ids a request names: the `session-id` / `session_id` headers and the body's
/// `prompt_cache_key` (Codex's conversation id).
pub fn session_ids(headers: &HeaderMap, body: Option<&Value>) -> Vec<String> {
    let mut ids: Vec<String> = ["session-id", "session_id"]
        .iter()
        .flat_map(|name| headers.get_all(*name).iter())
        .filter_map(|v| v.to_str().ok().map(str::to_owned))
        .collect();
    if let Some(key) = body.and_then(|b| b.get("prompt_cache_key")).and_then(Value::as_str) {
        ids.push(key.to_owned());
    }
    ids
}

/// Why a request names another account's identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    pub code: &'static str,
    pub message: &'static str,
}

/// An installation, and a session, belong to the first account that used them: a request of
/// another account naming one is refused (403 `installation_mismatch` / `session_mismatch`), as
/// one install or one conversation reaching several accounts links them. The error names
/// nothing of the owner.
pub fn check_installation(
    state: &SimState,
    account: &Account,
    headers: &HeaderMap,
    body: Option<&Value>,
) -> Result<(), Mismatch> {
    for id in installation_ids(headers, body) {
        if state.bind_installation(&id, &account.id).is_err() {
            return Err(Mismatch {
                code: "installation_mismatch",
                message: "This installation is signed in to another account.",
            });
        }
    }
    for id in session_ids(headers, body) {
        if state.bind_installation(&format!("session\0{id}"), &account.id).is_err() {
            return Err(Mismatch { code: "session_mismatch", message: "This session belongs to another account." });
        }
    }
    Ok(())
}

/// The 403 body of a foreign installation or session id.
pub fn installation_mismatch_body(mismatch: &Mismatch) -> Value {
    json!({"error": {"type": "invalid_request_error", "code": mismatch.code, "message": mismatch.message, "param": null}})
}

/// Body for a banned account (the OpenAI platform's deactivation error).
pub fn deactivated_body() -> Value {
    json!({"error": {
        "message": "Your OpenAI account has been deactivated, please check your email for more information.",
        "type": "invalid_request_error",
        "code": "account_deactivated",
        "param": null,
    }})
}

/// The 429 `usage_limit_reached` body (B.8).
pub fn usage_limit_body(account: &Account) -> Value {
    let now = now_unix();
    let window = account.exhausted_window().unwrap_or(account.primary);
    json!({"error": {
        "type": "usage_limit_reached",
        "message": "The usage limit has been reached",
        "plan_type": account.plan,
        "resets_at": window.reset_at,
        "resets_in_seconds": window.reset_after_seconds(now),
        "eligible_promo": null,
    }})
}

/// Status and body of a scripted error (`status=` directive).
pub fn scripted_error_body(status: u16, directive: &Directive, account: &Account) -> Value {
    let message = directive.message.clone();
    match (status, directive.code.as_deref()) {
        (429, None | Some("usage_limit_reached")) => {
            let mut body = usage_limit_body(account);
            if let Some(message) = message {
                body["error"]["message"] = json!(message);
            }
            body
        }
        (401, None) => json!({"detail": message.unwrap_or_else(|| "Unauthorized".into())}),
        (_, Some(code)) => json!({"error": {
            "type": code,
            "code": code,
            "message": message.unwrap_or_else(|| format!("Simulated error: {code}")),
            "param": null,
        }}),
        (status, None) if status >= 500 => json!({"error": {
            "type": "server_error",
            "code": "server_error",
            "message": message.unwrap_or_else(|| "An error occurred while processing your request.".into()),
            "param": null,
        }}),
        (_, None) => json!({"detail": message.unwrap_or_else(|| "Simulated error".into())}),
    }
}

/// Parameters the backend refuses (B.5). `previous_response_id` is allowed over WebSocket.
pub const UNSUPPORTED_PARAMETERS: &[&str] = &[
    "max_output_tokens",
    "previous_response_id",
    "messages",
    "response_format",
    "temperature",
    "top_p",
    "presence_penalty",
    "frequency_penalty",
    "seed",
    "metadata",
    "top_logprobs",
    "truncation",
    "user",
    "context_management",
];

/// Validates a Responses body; `Err(detail)` for a 400. Over WebSocket `stream` is not required
/// and `previous_response_id` is allowed.
pub fn validate(body: &Value, plan: &str, websocket: bool) -> Result<String, String> {
    let Some(object) = body.as_object() else {
        return Err("Request body must be a JSON object".into());
    };
    if object.get("store") != Some(&Value::Bool(false)) {
        return Err("Store must be set to false".into());
    }
    if !websocket && object.get("stream") != Some(&Value::Bool(true)) {
        return Err("Stream must be set to true".into());
    }
    for name in UNSUPPORTED_PARAMETERS {
        if websocket && *name == "previous_response_id" {
            continue;
        }
        if object.contains_key(*name) {
            return Err(format!("Unsupported parameter: {name}"));
        }
    }
    let model = object.get("model").and_then(Value::as_str).unwrap_or("");
    if !catalog::available(model, plan) {
        return Err(format!("The '{model}' model is not supported when using Codex with a ChatGPT account."));
    }
    Ok(model.to_owned())
}
