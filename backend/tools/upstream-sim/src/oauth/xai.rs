//! xAI OIDC issuer (PROTOCOL G.2, H.9, H.10, H.12 item 4) at `{xai_prefix}`: discovery,
//! authorize, token (authorization_code, refresh_token, device_code), device authorization,
//! userinfo, JWKS. Tokens live 6 h (`expires_in: 21600`). ID tokens are ES256-signed with the
//! simulator's key, published at the JWKS URI (`xai/signing.rs`).

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
use crate::oauth::{XAI_SCOPE, authorize, exchange_code, oauth_error, token_answer};
use crate::request::{Received, json_response};
use crate::state::{AuthFailure, DeviceStatus, SimState};
use crate::tokens::{RefreshOutcome, RefreshState};

const DEVICE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// Routes relative to the xAI prefix.
pub fn router() -> Router<Arc<SimState>> {
    Router::new()
        .route("/.well-known/openid-configuration", get(discovery))
        .route("/.well-known/jwks.json", get(jwks))
        .route("/oauth2/authorize", get(authorize_page))
        .route("/oauth2/token", post(token_endpoint))
        .route("/oauth2/device/code", post(device_code))
        .route("/oauth2/userinfo", get(userinfo))
        .route("/oauth2/revoke", post(revoke))
}

/// Names the issuer of the listener it was asked on (plain or TLS).
async fn discovery(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let issuer = state.xai_issuer_via(crate::request::via_tls(&request));
    json_response(
        StatusCode::OK,
        &json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/oauth2/authorize"),
            "token_endpoint": format!("{issuer}/oauth2/token"),
            "userinfo_endpoint": format!("{issuer}/oauth2/userinfo"),
            "jwks_uri": format!("{issuer}/.well-known/jwks.json"),
            "device_authorization_endpoint": format!("{issuer}/oauth2/device/code"),
            "revocation_endpoint": format!("{issuer}/oauth2/revoke"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", DEVICE_GRANT],
            "code_challenge_methods_supported": ["S256"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "subject_types_supported": ["public"],
            "token_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": XAI_SCOPE.split(' ').collect::<Vec<_>>(),
        }),
    )
}

async fn jwks() -> Response {
    json_response(StatusCode::OK, &crate::xai::signing::jwks())
}

async fn authorize_page(
    State(state): State<Arc<SimState>>,
    Query(params): Query<HashMap<String, String>>,
    request: Request,
) -> Response {
    state.record("GET", &crate::request::original_uri(&request), request.headers(), b"", None);
    authorize(&state, Provider::Xai, &params)
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
    let client_id = state.settings().xai_client_id;
    if body.get("client_id").and_then(Value::as_str).is_some_and(|id| id != client_id) {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "unknown client_id");
    }
    let field = |name: &str| body.get(name).and_then(Value::as_str).unwrap_or("").to_owned();
    match field("grant_type").as_str() {
        "authorization_code" => match exchange_code(&state, Provider::Xai, &body, received.tls) {
            Ok(set) => token_answer(&set, XAI_SCOPE),
            Err(response) => response,
        },
        "refresh_token" => {
            let response = refresh(&state, &field("refresh_token"), received.tls).await;
            state.record_set_cookies(seq, response.headers());
            response
        }
        DEVICE_GRANT => device_token(&state, &field("device_code"), received.tls),
        other => {
            oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", &format!("unsupported grant_type `{other}`"))
        }
    }
}

async fn refresh(state: &SimState, refresh_token: &str, tls: bool) -> Response {
    let invalid = |why: &str| oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", why);
    let Ok((account_id, token_state, scripted, banned)) = state.use_refresh_token(refresh_token, Provider::Xai) else {
        return invalid("refresh token is invalid");
    };
    match scripted {
        Some(RefreshOutcome::Expired) => return invalid("refresh token has expired"),
        Some(RefreshOutcome::Invalidated) => return invalid("refresh token was revoked"),
        Some(RefreshOutcome::Reused) => return invalid("refresh token was already used"),
        Some(RefreshOutcome::InvalidGrant) => return invalid("refresh token is invalid"),
        Some(RefreshOutcome::ServerError { status }) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            return oauth_error(status, "server_error", "internal error");
        }
        Some(RefreshOutcome::Delay { delay_ms }) => tokio::time::sleep(Duration::from_millis(delay_ms)).await,
        Some(RefreshOutcome::Challenge { status }) => {
            return crate::edge::challenge::answer(StatusCode::from_u16(status).unwrap_or(StatusCode::FORBIDDEN), tls);
        }
        None => {}
    }
    if banned {
        return invalid("account is blocked");
    }
    match token_state {
        RefreshState::Used => invalid("refresh token was already used"),
        RefreshState::Revoked => invalid("refresh token was revoked"),
        RefreshState::Active => match state.mint_tokens(&account_id, None) {
            Ok(set) => token_answer(&set, XAI_SCOPE),
            Err(error) => invalid(&error.to_string()),
        },
    }
}

fn device_token(state: &SimState, device_code: &str, tls: bool) -> Response {
    let Some(flow) = state.poll_device_flow(device_code).filter(|f| f.provider == Provider::Xai) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "unknown device_code");
    };
    match flow.status {
        DeviceStatus::Pending => oauth_error(StatusCode::BAD_REQUEST, "authorization_pending", "authorization pending"),
        DeviceStatus::SlowDown => oauth_error(StatusCode::BAD_REQUEST, "slow_down", "polling too fast"),
        DeviceStatus::Denied => oauth_error(StatusCode::BAD_REQUEST, "access_denied", "the user denied the request"),
        DeviceStatus::Expired => oauth_error(StatusCode::BAD_REQUEST, "expired_token", "the device code has expired"),
        DeviceStatus::Redeemed => oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "device code already used"),
        DeviceStatus::Approved { account_id } => match state.mint_tokens_via(&account_id, flow.nonce.as_deref(), tls) {
            Ok(set) => token_answer(&set, XAI_SCOPE),
            Err(error) => oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", &error.to_string()),
        },
    }
}

async fn device_code(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    state.record("POST", &received.uri, &received.headers, &received.body, None);
    let body = received.json_or_form().unwrap_or(Value::Null);
    if body.get("client_id").and_then(Value::as_str) != Some(state.settings().xai_client_id.as_str()) {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "unknown client_id");
    }
    let flow = state.start_device_flow(Provider::Xai, None);
    let verification = format!("{}/oauth2/device", state.xai_issuer_via(received.tls));
    json_response(
        StatusCode::OK,
        &json!({
            "device_code": flow.device_id,
            "user_code": flow.user_code,
            "verification_uri": verification,
            "verification_uri_complete": format!("{verification}?user_code={}", flow.user_code),
            "expires_in": 900,
            "interval": 5,
        }),
    )
}

async fn userinfo(State(state): State<Arc<SimState>>, request: Request) -> Response {
    state.record("GET", &crate::request::original_uri(&request), request.headers(), b"", None);
    let token = crate::request::bearer(request.headers()).unwrap_or("");
    match state.authenticate(token, Provider::Xai) {
        Ok(account) => json_response(
            StatusCode::OK,
            &json!({"sub": account.user_id, "email": account.email, "name": account.email, "team_id": account.id}),
        ),
        Err(AuthFailure::Unknown | AuthFailure::Expired(_)) => {
            oauth_error(StatusCode::UNAUTHORIZED, "invalid_token", "The access token is invalid or expired")
        }
    }
}

async fn revoke(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    state.record("POST", &received.uri, &received.headers, &received.body, None);
    if let Ok(body) = received.json_or_form()
        && let Some(token) = body.get("token").and_then(Value::as_str)
    {
        state.revoke_token(token);
    }
    json_response(StatusCode::OK, &json!({}))
}
