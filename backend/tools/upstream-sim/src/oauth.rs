//! OAuth issuers: OpenAI (`{oauth_base_path}/oauth/*`, device auth under `/api/accounts`) and
//! xAI OIDC (`{xai_prefix}/.well-known/openid-configuration`, `{xai_prefix}/oauth2/*`). Shared
//! here: PKCE, the browser authorize step and the token-set answer.

pub mod device;
pub mod openai;
pub mod xai;

use std::collections::HashMap;
use std::sync::Arc;

use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::account::Provider;
use crate::ids::now_unix;
use crate::request::{json_response, redirect};
use crate::state::{AuthCode, SimState};
use crate::tokens::TokenSet;

/// OpenAI's scope string (PROTOCOL A.2).
pub const OPENAI_SCOPE: &str = "openid profile email offline_access api.connectors.read api.connectors.invoke";
/// xAI's scope string (PROTOCOL G.2).
pub const XAI_SCOPE: &str = "openid profile email offline_access grok-cli:access api:access";

/// `base64url(sha256(verifier))` without padding (PKCE S256).
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// `{"error": code, "error_description": description}` (RFC 6749 shape).
pub fn oauth_error(status: StatusCode, code: &str, description: &str) -> Response {
    json_response(status, &json!({"error": code, "error_description": description}))
}

/// The token endpoint's success answer.
pub fn token_answer(set: &TokenSet, scope: &str) -> Response {
    json_response(
        StatusCode::OK,
        &json!({
            "id_token": set.id_token,
            "access_token": set.access_token,
            "refresh_token": set.refresh_token,
            "token_type": "Bearer",
            "expires_in": set.expires_in,
            "scope": scope,
        }),
    )
}

/// `uri` with `params` appended to its query.
pub fn with_query(uri: &str, params: &[(&str, &str)]) -> String {
    let query = serde_urlencoded::to_string(params).unwrap_or_default();
    let separator = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{separator}{query}")
}

/// The browser step of an authorization-code flow: validates the request, auto-approves for the
/// chosen account (`sim_account` or `login_hint`, else the default) and redirects with a code.
pub fn authorize(state: &Arc<SimState>, provider: Provider, params: &HashMap<String, String>) -> Response {
    let settings = state.settings();
    let expected_client = match provider {
        Provider::Openai => settings.openai_client_id,
        Provider::Xai => settings.xai_client_id,
    };
    let get = |name: &str| params.get(name).map(String::as_str).filter(|v| !v.is_empty());
    if get("response_type") != Some("code") {
        return oauth_error(StatusCode::BAD_REQUEST, "unsupported_response_type", "response_type must be code");
    }
    if get("client_id") != Some(expected_client.as_str()) {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_client", "unknown client_id");
    }
    let Some(redirect_uri) = get("redirect_uri").filter(|u| u.starts_with("http://") || u.starts_with("https://"))
    else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "redirect_uri must be an http(s) URL");
    };
    let Some(challenge) = get("code_challenge") else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "code_challenge is required");
    };
    if get("code_challenge_method") != Some("S256") {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "code_challenge_method must be S256");
    }
    let Some(request_state) = get("state") else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "state is required");
    };
    let hint = get("sim_account").or_else(|| get("login_hint"));
    let Some(account) = state.pick_account(provider, hint) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "no simulated account matches the request");
    };
    if account.banned {
        let target = with_query(
            redirect_uri,
            &[("error", "access_denied"), ("error_description", "account_deactivated"), ("state", request_state)],
        );
        return redirect(&target);
    }
    let code = state.issue_code(AuthCode {
        provider,
        account_id: account.id,
        client_id: expected_client,
        redirect_uri: redirect_uri.to_owned(),
        code_challenge: challenge.to_owned(),
        nonce: get("nonce").map(str::to_owned),
        expires_at: now_unix() + 600,
    });
    redirect(&with_query(redirect_uri, &[("code", &code), ("state", request_state)]))
}

/// Exchanges an authorization code (PKCE checked). The error is an `invalid_grant` answer.
pub fn exchange_code(state: &SimState, provider: Provider, body: &Value, tls: bool) -> Result<TokenSet, Response> {
    let field = |name: &str| body.get(name).and_then(Value::as_str).unwrap_or("");
    let invalid = |why: &str| oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", why);
    let code = state.take_code(field("code")).ok_or_else(|| invalid("invalid or expired authorization code"))?;
    if code.provider != provider {
        return Err(invalid("invalid or expired authorization code"));
    }
    if !field("client_id").is_empty() && field("client_id") != code.client_id {
        return Err(invalid("client_id does not match the authorization request"));
    }
    let given = field("redirect_uri");
    let device_callback =
        code.redirect_uri.ends_with("/deviceauth/callback") && given.ends_with("/deviceauth/callback");
    if given != code.redirect_uri && !device_callback {
        return Err(invalid("redirect_uri does not match the authorization request"));
    }
    if s256(field("code_verifier")) != code.code_challenge {
        return Err(invalid("PKCE verification failed"));
    }
    state
        .mint_tokens_via(&code.account_id, code.nonce.as_deref(), tls)
        .map_err(|error| oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", &error.to_string()))
}
