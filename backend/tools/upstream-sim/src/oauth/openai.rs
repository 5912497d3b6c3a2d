//! OpenAI OAuth (PROTOCOL A): authorize, token (authorization_code with PKCE, refresh_token as
//! JSON or form with single-use rotation, API-key token exchange) and revoke.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Query, Request, State};
use axum::response::Response;
use axum::routing::{get, post};
use http::StatusCode;
use serde_json::{Value, json};

use crate::account::Provider;
use crate::ids::token;
use crate::oauth::{OPENAI_SCOPE, authorize, device, exchange_code, oauth_error, token_answer};
use crate::request::{Received, json_response};
use crate::state::SimState;
use crate::tokens::{RefreshOutcome, RefreshState};

/// Routes relative to the OpenAI issuer base path.
pub fn router() -> Router<Arc<SimState>> {
    Router::new()
        .route("/oauth/authorize", get(authorize_page))
        .route("/oauth/token", post(token_endpoint))
        .route("/oauth/revoke", post(revoke))
        .route("/.well-known/openid-configuration", get(discovery))
        .route("/api/accounts/deviceauth/usercode", post(device::usercode))
        .route("/api/accounts/deviceauth/token", post(device::poll))
        .route("/deviceauth/callback", get(device::callback_page))
        .route("/codex/device", get(device::verification_page))
}

async fn authorize_page(
    State(state): State<Arc<SimState>>,
    Query(params): Query<HashMap<String, String>>,
    request: Request,
) -> Response {
    state.record("GET", &crate::request::original_uri(&request), request.headers(), b"", None);
    authorize(&state, Provider::Openai, &params)
}

async fn discovery(State(state): State<Arc<SimState>>) -> Response {
    let issuer = state.openai_issuer();
    json_response(
        StatusCode::OK,
        &json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/oauth/authorize"),
            "token_endpoint": format!("{issuer}/oauth/token"),
            "revocation_endpoint": format!("{issuer}/oauth/revoke"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "id_token_signing_alg_values_supported": ["none"],
        }),
    )
}

/// The nested error body OpenAI uses for refresh failures (`{"error":{"code":…}}`).
fn refresh_error(status: StatusCode, code: &str, message: &str) -> Response {
    json_response(
        status,
        &json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": code}}),
    )
}

fn reused() -> Response {
    refresh_error(
        StatusCode::UNAUTHORIZED,
        "refresh_token_reused",
        "Your refresh token has already been used to generate a new access token. Please try signing in again.",
    )
}

fn invalidated() -> Response {
    refresh_error(
        StatusCode::UNAUTHORIZED,
        "refresh_token_invalidated",
        "Your refresh token has been invalidated. Please try signing in again.",
    )
}

async fn token_endpoint(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    let seq = state.record("POST", &received.uri, &received.headers, &received.body, None);
    let body = match received.json_or_form() {
        Ok(body) => body,
        Err(why) => return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", &why),
    };
    let client_id = state.settings().openai_client_id;
    let given_client = body.get("client_id").and_then(Value::as_str);
    if given_client.is_some_and(|id| id != client_id) {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "unknown client_id");
    }
    match body.get("grant_type").and_then(Value::as_str).unwrap_or("") {
        "authorization_code" => match exchange_code(&state, Provider::Openai, &body, false) {
            Ok(set) => token_answer(&set, OPENAI_SCOPE),
            Err(response) => response,
        },
        "refresh_token" => {
            let response =
                refresh(&state, body.get("refresh_token").and_then(Value::as_str).unwrap_or(""), received.tls).await;
            state.record_set_cookies(seq, response.headers());
            response
        }
        "urn:ietf:params:oauth:grant-type:token-exchange" => {
            json_response(StatusCode::OK, &json!({"access_token": token("sk-sim-"), "token_type": "Bearer"}))
        }
        other => {
            oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", &format!("unsupported grant_type `{other}`"))
        }
    }
}

async fn refresh(state: &SimState, refresh_token: &str, tls: bool) -> Response {
    let (account_id, token_state, scripted, banned) = match state.use_refresh_token(refresh_token, Provider::Openai) {
        Ok(found) => found,
        Err(_) => return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "Invalid refresh token"),
    };
    match scripted {
        Some(RefreshOutcome::Expired) => {
            return refresh_error(
                StatusCode::UNAUTHORIZED,
                "refresh_token_expired",
                "Your refresh token has expired. Please try signing in again.",
            );
        }
        Some(RefreshOutcome::Invalidated) => return invalidated(),
        Some(RefreshOutcome::Reused) => return reused(),
        Some(RefreshOutcome::InvalidGrant) => {
            return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "Invalid refresh token");
        }
        Some(RefreshOutcome::ServerError { status }) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            return oauth_error(status, "server_error", "The authorization server had an internal error");
        }
        Some(RefreshOutcome::Delay { delay_ms }) => tokio::time::sleep(Duration::from_millis(delay_ms)).await,
        Some(RefreshOutcome::Challenge { status }) => {
            return crate::edge::challenge::answer(StatusCode::from_u16(status).unwrap_or(StatusCode::FORBIDDEN), tls);
        }
        None => {}
    }
    if banned {
        return json_response(StatusCode::UNAUTHORIZED, &crate::codex::deactivated_body());
    }
    match token_state {
        RefreshState::Used => reused(),
        RefreshState::Revoked => invalidated(),
        RefreshState::Active => match state.mint_tokens(&account_id, None) {
            Ok(set) => token_answer(&set, OPENAI_SCOPE),
            Err(error) => oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", &error.to_string()),
        },
    }
}

async fn revoke(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    state.record("POST", &received.uri, &received.headers, &received.body, None);
    let body = match received.json_or_form() {
        Ok(body) => body,
        Err(why) => return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", &why),
    };
    match body.get("token").and_then(Value::as_str) {
        Some(token) => {
            state.revoke_token(token);
            json_response(StatusCode::OK, &json!({}))
        }
        None => oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "token is required"),
    }
}
