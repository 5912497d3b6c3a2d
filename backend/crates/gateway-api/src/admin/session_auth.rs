//! Who is calling: the session cookie or an admin API key, checked by a middleware in front of
//! every protected admin route.
//!
//! - `Authorization: Bearer sb-admin-…` authenticates automation; there is no cookie, so no
//!   CSRF check.
//! - Otherwise the `sb_admin_session` cookie must name a live session (idle and absolute
//!   expiry enforced by the store) of an admin who is still enabled and has the credentials
//!   the session logged in with (`gateway_admin::auth::standing`). For unsafe methods (POST, PUT, PATCH, DELETE) the
//!   `X-Switchboard-CSRF` header must equal the session's CSRF token (constant-time compare);
//!   together with `SameSite=Strict` this stops cross-site requests.
//! - Redis down means sessions cannot be checked: the request fails closed with 503.

use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use gateway_admin::auth::{AdminPrincipal, AuthMethod, ClientOrigin, constant_time_eq};
use time::OffsetDateTime;

use crate::admin::AdminApi;
use crate::admin::envelope::ApiFailure;

pub const SESSION_COOKIE: &str = "sb_admin_session";
/// The signed device cookie a login sets (see `gateway_admin::auth::device_cookie`).
pub const DEVICE_COOKIE: &str = "sb_admin_device";
pub const CSRF_HEADER: &str = "x-switchboard-csrf";

/// The value of cookie `name`, if sent.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim().to_owned())
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(axum::http::header::AUTHORIZATION)?.to_str().ok()?.trim();
    value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer ")).map(str::trim)
}

fn is_unsafe(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Authenticates the request and stores the [`AdminPrincipal`] and the [`ClientOrigin`] (for
/// password step-ups) in its extensions.
pub async fn require_admin(State(api): State<AdminApi>, mut request: Request, next: Next) -> Response {
    match authenticate(&api, request.method(), request.headers()).await {
        Ok(principal) => {
            let origin = client_origin(&api, request.headers(), peer_of(&request));
            request.extensions_mut().insert(principal);
            request.extensions_mut().insert(origin);
            next.run(request).await
        }
        Err(failure) => failure.into_response(),
    }
}

fn peer_of(request: &Request) -> Option<SocketAddr> {
    request.extensions().get::<axum::extract::ConnectInfo<SocketAddr>>().map(|c| c.0)
}

/// Where a password attempt of this request comes from.
pub fn client_origin(api: &AdminApi, headers: &HeaderMap, peer: Option<SocketAddr>) -> ClientOrigin {
    ClientOrigin { ip: client_ip(api, headers, peer), device_cookie: cookie(headers, DEVICE_COOKIE) }
}

async fn authenticate(api: &AdminApi, method: &Method, headers: &HeaderMap) -> Result<AdminPrincipal, ApiFailure> {
    if let Some(token) = bearer(headers) {
        let user = api
            .services
            .auth
            .authenticate_api_key(token)
            .await?
            .ok_or_else(|| ApiFailure::unauthenticated("the admin API key is not valid"))?;
        return Ok(AdminPrincipal { user_id: user.id, username: user.username, method: AuthMethod::ApiKey });
    }
    let token = cookie(headers, SESSION_COOKIE).ok_or_else(|| ApiFailure::unauthenticated("log in first"))?;
    let session = api
        .services
        .auth
        .authenticate_session(&token, OffsetDateTime::now_utc())
        .await?
        .ok_or_else(|| ApiFailure::unauthenticated("the session expired or was revoked; log in again"))?;
    if is_unsafe(method) {
        let sent = headers.get(CSRF_HEADER).map(|v| v.as_bytes()).unwrap_or_default();
        if !constant_time_eq(sent, session.csrf_token.as_bytes()) {
            return Err(ApiFailure::new(
                StatusCode::FORBIDDEN,
                "csrf_failed",
                "send the session's CSRF token in the X-Switchboard-CSRF header",
            ));
        }
    }
    Ok(AdminPrincipal {
        user_id: session.user_id,
        username: session.username,
        method: AuthMethod::Session { session_id: session.id, csrf_token: session.csrf_token },
    })
}

/// The client address: the socket peer, or — when the peer is a trusted proxy — the
/// right-most `X-Forwarded-For` entry that is not one (`gateway_admin::auth::client_address`).
pub fn client_ip(api: &AdminApi, headers: &HeaderMap, peer: Option<SocketAddr>) -> Option<String> {
    let forwarded: Vec<&str> = headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok()).collect();
    api.config.proxies.client_address(peer.map(|p| p.ip()), &forwarded)
}

/// Whether cookies get `Secure`: configured, or the request came through a trusted TLS proxy
/// (the peer is one and it says `X-Forwarded-Proto: https`).
pub fn secure_cookies(api: &AdminApi, headers: &HeaderMap, peer: Option<SocketAddr>) -> bool {
    api.config.cookie_secure
        || (api.config.proxies.trusts_peer(peer.map(|p| p.ip()))
            && headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|p| p.eq_ignore_ascii_case("https")))
}

/// `Set-Cookie` for a device cookie: sent back on every admin path (login and step-ups).
pub fn device_cookie(value: &str, secure: bool, max_age_seconds: u64) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{DEVICE_COOKIE}={value}; Path=/api/admin; HttpOnly; SameSite=Strict; Max-Age={max_age_seconds}{secure}")
}

/// `Set-Cookie` for a session (or, with `None`, its removal).
pub fn session_cookie(token: Option<&str>, secure: bool, max_age_seconds: i64) -> String {
    let secure = if secure { "; Secure" } else { "" };
    match token {
        Some(token) => format!(
            "{SESSION_COOKIE}={token}; Path=/api/admin; HttpOnly; SameSite=Strict; Max-Age={max_age_seconds}{secure}"
        ),
        None => format!("{SESSION_COOKIE}=; Path=/api/admin; HttpOnly; SameSite=Strict; Max-Age=0{secure}"),
    }
}
