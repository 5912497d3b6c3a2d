//! OpenAI device-code login (PROTOCOL A.8): user code, polling (403 while pending), then an
//! authorization code with a server-generated PKCE pair, exchanged with
//! `redirect_uri={issuer}/deviceauth/callback`. Approval comes from the control API.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::{Html, IntoResponse, Response};
use http::StatusCode;
use serde_json::{Value, json};

use crate::account::Provider;
use crate::ids::{now_unix, token};
use crate::oauth::{oauth_error, s256};
use crate::request::{Received, json_response};
use crate::state::{AuthCode, DeviceStatus, SimState};

pub async fn usercode(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    state.record("POST", &received.uri, &received.headers, &received.body, None);
    let body = received.json_or_form().unwrap_or(Value::Null);
    let client_id = state.settings().openai_client_id;
    if body.get("client_id").and_then(Value::as_str) != Some(client_id.as_str()) {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_client", "unknown client_id");
    }
    let flow = state.start_device_flow(Provider::Openai, None);
    json_response(
        StatusCode::OK,
        &json!({
            "device_auth_id": flow.device_id,
            "user_code": flow.user_code,
            "usercode": flow.user_code,
            "interval": "5",
            "expires_at": crate::ids::rfc3339(flow.created_at + 900),
        }),
    )
}

pub async fn poll(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    state.record("POST", &received.uri, &received.headers, &received.body, None);
    let body = received.json_or_form().unwrap_or(Value::Null);
    let device_id = body.get("device_auth_id").and_then(Value::as_str).unwrap_or("");
    let Some(flow) = state.poll_device_flow(device_id).filter(|f| f.provider == Provider::Openai) else {
        return json_response(
            StatusCode::NOT_FOUND,
            &json!({"error": {"code": "device_auth_not_found", "message": "Unknown device authorization"}}),
        );
    };
    if body.get("user_code").and_then(Value::as_str).is_some_and(|code| code != flow.user_code) {
        return json_response(
            StatusCode::BAD_REQUEST,
            &json!({"error": {"code": "invalid_user_code", "message": "user_code does not match"}}),
        );
    }
    match flow.status {
        DeviceStatus::Pending | DeviceStatus::SlowDown => json_response(
            StatusCode::FORBIDDEN,
            &json!({"error": {"code": "deviceauth_authorization_pending", "message": "Authorization is pending"}}),
        ),
        DeviceStatus::Denied => json_response(
            StatusCode::BAD_REQUEST,
            &json!({"error": {"code": "access_denied", "message": "The user denied the request"}}),
        ),
        DeviceStatus::Expired => json_response(
            StatusCode::GONE,
            &json!({"error": {"code": "expired_token", "message": "The device code has expired"}}),
        ),
        DeviceStatus::Redeemed => json_response(
            StatusCode::BAD_REQUEST,
            &json!({"error": {"code": "already_redeemed", "message": "The device code was already used"}}),
        ),
        DeviceStatus::Approved { account_id } => {
            let verifier = token("dv_");
            let challenge = s256(&verifier);
            let code = state.issue_code(AuthCode {
                provider: Provider::Openai,
                account_id,
                client_id: state.settings().openai_client_id,
                redirect_uri: format!("{}/deviceauth/callback", state.openai_issuer()),
                code_challenge: challenge.clone(),
                nonce: None,
                expires_at: now_unix() + 600,
            });
            json_response(
                StatusCode::OK,
                &json!({"authorization_code": code, "code_challenge": challenge, "code_verifier": verifier}),
            )
        }
    }
}

pub async fn callback_page() -> Response {
    Html("<html><body>Device login complete (upstream-sim).</body></html>").into_response()
}

pub async fn verification_page() -> Response {
    Html("<html><body>Enter your code (upstream-sim: approve with POST /_sim/device/approve).</body></html>")
        .into_response()
}
