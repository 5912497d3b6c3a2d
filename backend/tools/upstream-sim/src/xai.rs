//! The xAI upstream (`{xai_prefix}`, default `/xai`), shaped like the Grok CLI proxy
//! (PROTOCOL G, H): `/v1/responses` (SSE or JSON, `store` defaults to true,
//! `previous_response_id` over HTTP), `/v1/chat/completions`, `/v1/models`, `/v1/billing`,
//! the client-header gate (426) and xAI's flat error body `{"code":…,"error":…}`.
//! The OIDC issuer lives under the same prefix (see `oauth::xai`).

pub mod catalog;
pub mod chat;
pub mod compact;
pub mod reasoning;
pub mod responses;
pub mod shape;
pub mod signing;

use std::sync::Arc;

use axum::Router;
use axum::response::Response;
use axum::routing::{get, post};
use http::{HeaderMap, StatusCode};
use serde_json::json;

use crate::account::{Account, Provider};
use crate::ids::token;
use crate::request::{bearer, json_response_with, set_header};
use crate::script::Directive;
use crate::state::SimState;

/// Routes relative to the xAI prefix (inference; the OIDC routes are merged by the app).
pub fn router() -> Router<Arc<SimState>> {
    Router::new()
        .route("/v1/responses", post(responses::create).get(responses::websocket_refused))
        .route("/v1/responses/{id}", get(responses::retrieve).delete(responses::delete))
        .route("/v1/chat/completions", post(chat::create))
        .route("/v1/models", get(catalog::models))
        .route("/v1/billing", get(catalog::billing))
}

/// Routes of the simulated public API host (`api.x.ai`), nested at
/// [`compact::XAI_API_PREFIX`].
pub fn api_router() -> Router<Arc<SimState>> {
    Router::new().route("/v1/responses/compact", post(compact::compact))
}

/// `{"code": code, "error": message}` with an `x-request-id`.
pub fn xai_error(status: StatusCode, code: &str, message: &str, request: &HeaderMap) -> Response {
    json_response_with(status, &json!({"code": code, "error": message}), answer_headers(request))
}

/// Headers on every xAI answer: `x-request-id` echoed (or new).
pub fn answer_headers(request: &HeaderMap) -> HeaderMap {
    let mut headers = HeaderMap::new();
    let id =
        request.get("x-request-id").and_then(|v| v.to_str().ok()).map(str::to_owned).unwrap_or_else(|| token("xreq_"));
    set_header(&mut headers, "x-request-id", id);
    headers
}

/// Parses `MAJOR.MINOR.PATCH` (a `-pre`/`+build` suffix is ignored).
fn semver(value: &str) -> Option<(u64, u64, u64)> {
    let core = value.trim().split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let version = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(version)
}

/// The client gate (H.2): `X-XAI-Token-Auth: xai-grok-cli` and a semver
/// `x-grok-client-version` at or above the configured floor, else 426.
pub fn gate(state: &SimState, headers: &HeaderMap) -> Result<(), Response> {
    let settings = state.settings();
    if !settings.xai_require_client_headers {
        return Ok(());
    }
    let version = headers.get("x-grok-client-version").and_then(|v| v.to_str().ok());
    let floor = semver(&settings.grok_min_client_version).unwrap_or((0, 0, 0));
    let token_auth = headers.get("x-xai-token-auth").and_then(|v| v.to_str().ok()) == Some("xai-grok-cli");
    let version_ok = version.and_then(semver).is_some_and(|v| v >= floor);
    if token_auth && version_ok {
        return Ok(());
    }
    let body = json!({"error": format!(
        "Your Grok CLI version ({}) is outdated. Please update to version {} or later to continue.",
        version.unwrap_or("none"),
        settings.grok_min_client_version,
    )});
    Err(json_response_with(StatusCode::UPGRADE_REQUIRED, &body, answer_headers(headers)))
}

/// Authenticates an xAI bearer token. Unknown or expired tokens get xAI's real answer, 403
/// `unauthenticated:bad-credentials`; banned accounts 403 `permission-denied:account-blocked`.
pub fn authorize(state: &SimState, headers: &HeaderMap) -> Result<Account, Response> {
    let bad_credentials = || {
        xai_error(
            StatusCode::FORBIDDEN,
            "unauthenticated:bad-credentials",
            "The OAuth2 access token could not be validated.",
            headers,
        )
    };
    let token = bearer(headers).ok_or_else(bad_credentials)?;
    let account = state.authenticate(token, Provider::Xai).map_err(|_| bad_credentials())?;
    if account.banned {
        return Err(xai_error(
            StatusCode::FORBIDDEN,
            "permission-denied:account-blocked",
            "Your account has been suspended. Contact support.",
            headers,
        ));
    }
    Ok(account)
}

/// The answer when the account's quota is exhausted: free plans 429
/// `subscription:free-usage-exhausted`, paid plans 402 `personal-team-blocked:spending-limit`.
pub fn quota_error(account: &Account, model: &str, headers: &HeaderMap) -> Response {
    let retry = account.exhausted_window().map(|w| w.reset_after_seconds(crate::ids::now_unix())).unwrap_or(60);
    let mut response = if account.plan == "free" {
        xai_error(
            StatusCode::TOO_MANY_REQUESTS,
            "subscription:free-usage-exhausted",
            &format!(
                "You have used all the included free usage for model {model}. Usage resets over a rolling 24 hour window."
            ),
            headers,
        )
    } else {
        xai_error(
            StatusCode::PAYMENT_REQUIRED,
            "personal-team-blocked:spending-limit",
            &format!("Your team {} has reached its monthly spending limit.", account.id),
            headers,
        )
    };
    set_header(response.headers_mut(), "retry-after", retry.to_string());
    response
}

/// A scripted error (`status=` directive) in xAI's shape.
pub fn scripted_error(status: u16, directive: &Directive, headers: &HeaderMap) -> Response {
    let (code, message) = match status {
        401 => ("unauthenticated", "Invalid or expired access token."),
        402 => ("personal-team-blocked:spending-limit", "Your team has reached its monthly spending limit."),
        403 => ("unauthenticated:bad-credentials", "The OAuth2 access token could not be validated."),
        404 => ("not_found", "The requested resource was not found."),
        429 => ("rate_limit_exceeded", "Too many requests. Please slow down."),
        400 => ("Client specified an invalid argument", "Invalid request."),
        529 => ("overloaded", "The service is overloaded. Please try again later."),
        s if s >= 500 => ("internal", "Internal server error."),
        _ => ("error", "Simulated error."),
    };
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let code = directive.code.as_deref().unwrap_or(code);
    let message = directive.message.as_deref().unwrap_or(message);
    let mut response = xai_error(status, code, message, headers);
    if let Some(value) = directive.retry_after_value() {
        set_header(response.headers_mut(), "retry-after", value);
    }
    response
}
