//! `/api/admin/auth/*`: login, the current session, logout, the admin's sessions, password
//! change and the admin API key.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use gateway_admin::admin_user::AdminUserRecord;
use gateway_admin::auth::{AdminPrincipal, AuthMethod, ClientOrigin, LoginAttempt};
use gateway_admin::ports::AdminSession;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody, no_content};
use crate::admin::extract::{JsonBody, Peer};
use crate::admin::session_auth::{
    SESSION_COOKIE, client_origin, cookie, device_cookie, secure_cookies, session_cookie,
};

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .routes(routes!(current_session))
        .routes(routes!(logout))
        .routes(routes!(list_sessions))
        .routes(routes!(revoke_session))
        .routes(routes!(change_own_password))
        .routes(routes!(create_own_api_key, delete_own_api_key))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoginRequest {
    #[schema(min_length = 1, max_length = 100)]
    pub username: String,
    #[schema(min_length = 1, max_length = 256)]
    pub password: String,
    /// The current TOTP code; required when the admin has TOTP enabled (`401 totp_required`
    /// without it, `401 totp_invalid` when wrong — counted like a wrong password).
    #[schema(max_length = 16)]
    pub totp: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminUserView {
    pub id: i64,
    pub username: String,
    pub totp_enabled: bool,
    /// Display prefix of the admin API key, if one exists.
    pub api_key_prefix: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub last_login_at: Option<OffsetDateTime>,
}

impl From<&AdminUserRecord> for AdminUserView {
    fn from(u: &AdminUserRecord) -> Self {
        Self {
            id: u.id.0,
            username: u.username.clone(),
            totp_enabled: u.totp_enabled,
            api_key_prefix: u.api_key_prefix.clone(),
            last_login_at: u.last_login_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// Public id (not the cookie value).
    pub id: String,
    /// Send this in `X-Switchboard-CSRF` on POST/PUT/PATCH/DELETE.
    pub csrf_token: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub idle_expires_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub absolute_expires_at: OffsetDateTime,
}

impl From<&AdminSession> for SessionView {
    fn from(s: &AdminSession) -> Self {
        Self {
            id: s.id.clone(),
            csrf_token: s.csrf_token.clone(),
            created_at: s.created_at,
            idle_expires_at: s.idle_expires_at,
            absolute_expires_at: s.absolute_expires_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct LoginResponse {
    pub user: AdminUserView,
    pub session: SessionView,
}

/// Logs in with username and password; sets the `sb_admin_session` cookie and a new
/// `sb_admin_device` cookie (both HttpOnly, SameSite=Strict, Secure behind TLS). Attempts are
/// counted per address and per device cookie (or, without a valid one, per username for all
/// such clients) before the password is checked; at a limit, or while the password-hashing
/// bound is full, the answer is 429 with `Retry-After`.
#[utoipa::path(post, path = "/api/admin/auth/login", tag = "auth", security(()),
    request_body = LoginRequest,
    responses((status = 200, body = LoginResponse), (status = "4XX", body = ErrorBody)))]
pub async fn login(
    State(api): State<AdminApi>,
    Peer(peer): Peer,
    headers: HeaderMap,
    JsonBody(body): JsonBody<LoginRequest>,
) -> ApiResult<Response> {
    let attempt = LoginAttempt {
        username: body.username,
        password: body.password,
        totp: body.totp,
        origin: client_origin(&api, &headers, peer),
        user_agent: headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok()).map(str::to_owned),
    };
    let outcome = api.services.auth.login(attempt, OffsetDateTime::now_utc()).await?;
    let secure = secure_cookies(&api, &headers, peer);
    let max_age = (outcome.session.absolute_expires_at - outcome.session.created_at).whole_seconds();
    let device_max_age = api.services.auth.device_cookie_lifetime().as_secs();
    let set_cookies = [
        session_cookie(Some(&outcome.token), secure, max_age),
        device_cookie(&outcome.device_cookie, secure, device_max_age),
    ];
    let body = LoginResponse { user: AdminUserView::from(&outcome.user), session: SessionView::from(&outcome.session) };
    let mut response = Json(body).into_response();
    for set_cookie in set_cookies {
        if let Ok(value) = HeaderValue::from_str(&set_cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    Ok(response)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CurrentSession {
    pub user: AdminUserView,
    /// `session` (cookie) or `api_key`.
    pub method: String,
    /// The cookie session; absent for API-key requests.
    pub session: Option<SessionView>,
}

/// The admin behind this request and, for cookie sessions, the session (with its CSRF token).
#[utoipa::path(get, path = "/api/admin/auth/session", tag = "auth",
    responses((status = 200, body = CurrentSession), (status = "4XX", body = ErrorBody)))]
pub async fn current_session(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
) -> ApiResult<Json<CurrentSession>> {
    let session_id = match &principal.method {
        AuthMethod::Session { session_id, .. } => Some(session_id.as_str()),
        AuthMethod::ApiKey => None,
    };
    let (user, session) = api.services.auth.current(principal.user_id, session_id, OffsetDateTime::now_utc()).await?;
    let session = session.as_ref().map(SessionView::from);
    let method = if session.is_some() { "session" } else { "api_key" };
    Ok(Json(CurrentSession { user: AdminUserView::from(&user), method: method.to_owned(), session }))
}

/// Revokes the current session and clears the cookie.
#[utoipa::path(post, path = "/api/admin/auth/logout", tag = "auth",
    responses((status = 204, description = "logged out"), (status = "4XX", body = ErrorBody)))]
pub async fn logout(State(api): State<AdminApi>, Peer(peer): Peer, headers: HeaderMap) -> ApiResult<Response> {
    if let Some(token) = cookie(&headers, SESSION_COOKIE) {
        api.services.auth.logout(&token).await?;
    }
    let mut response = no_content();
    if let Ok(value) = HeaderValue::from_str(&session_cookie(None, secure_cookies(&api, &headers, peer), 0)) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    Ok(response)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub id: String,
    pub current: bool,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub last_seen_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub idle_expires_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub absolute_expires_at: OffsetDateTime,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct SessionList {
    pub items: Vec<SessionSummary>,
}

/// The current admin's live sessions, newest first.
#[utoipa::path(get, path = "/api/admin/auth/sessions", tag = "auth",
    responses((status = 200, body = SessionList), (status = "4XX", body = ErrorBody)))]
pub async fn list_sessions(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
) -> ApiResult<Json<SessionList>> {
    let current = match &principal.method {
        AuthMethod::Session { session_id, .. } => Some(session_id.clone()),
        AuthMethod::ApiKey => None,
    };
    let sessions = api.services.auth.sessions(principal.user_id, OffsetDateTime::now_utc()).await?;
    let items = sessions
        .into_iter()
        .map(|s| SessionSummary {
            current: current.as_deref() == Some(s.id.as_str()),
            id: s.id,
            created_at: s.created_at,
            last_seen_at: s.last_seen_at,
            idle_expires_at: s.idle_expires_at,
            absolute_expires_at: s.absolute_expires_at,
            ip: s.ip,
            user_agent: s.user_agent,
        })
        .collect();
    Ok(Json(SessionList { items }))
}

/// Revokes one of the current admin's sessions.
#[utoipa::path(delete, path = "/api/admin/auth/sessions/{id}", tag = "auth",
    params(("id" = String, Path, description = "public session id")),
    responses((status = 204, description = "revoked"), (status = "4XX", body = ErrorBody)))]
pub async fn revoke_session(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> ApiResult<Response> {
    let revoked = api.services.auth.revoke_session(principal.user_id, &id).await?;
    if revoked { Ok(no_content()) } else { Err(ApiFailure::new(StatusCode::NOT_FOUND, "not_found", "no such session")) }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PasswordChange {
    pub current_password: String,
    #[schema(min_length = 10, max_length = 256)]
    pub new_password: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PasswordChanged {
    /// The admin's other sessions, revoked by the change.
    pub revoked_sessions: u32,
    /// The session that replaces the current one (a cookie session): a new
    /// `sb_admin_session` cookie is set, the CSRF token stays. Absent for API-key requests.
    pub session: Option<SessionView>,
}

/// Changes the current admin's password (audited). Every session of the admin ends; a cookie
/// session that made the change is replaced by a new one (new cookie, same CSRF token).
#[utoipa::path(post, path = "/api/admin/auth/password", tag = "auth", request_body = PasswordChange,
    responses((status = 200, body = PasswordChanged), (status = "4XX", body = ErrorBody)))]
pub async fn change_own_password(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    Extension(origin): Extension<ClientOrigin>,
    Peer(peer): Peer,
    headers: HeaderMap,
    JsonBody(body): JsonBody<PasswordChange>,
) -> ApiResult<Response> {
    let (current, new, now) = (&body.current_password, &body.new_password, OffsetDateTime::now_utc());
    let changed = api.services.auth.change_password(&principal, &origin, current, new, now).await?;
    let view = changed.session.as_ref().map(|(_, session)| SessionView::from(session));
    let mut response =
        Json(PasswordChanged { revoked_sessions: changed.revoked_sessions, session: view }).into_response();
    if let Some((token, session)) = &changed.session {
        let max_age = (session.absolute_expires_at - now).whole_seconds();
        let set_cookie = session_cookie(Some(token), secure_cookies(&api, &headers, peer), max_age);
        if let Ok(value) = HeaderValue::from_str(&set_cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
    }
    Ok(response)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StepUp {
    /// The current admin's password (step-up confirmation).
    pub password: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedApiKey {
    /// The plaintext key, shown once; send it as `Authorization: Bearer …`.
    pub api_key: String,
    pub prefix: String,
}

/// Creates (or replaces) the current admin's API key; needs the password. Audited.
#[utoipa::path(post, path = "/api/admin/auth/api-key", tag = "auth", request_body = StepUp,
    responses((status = 201, body = CreatedApiKey), (status = "4XX", body = ErrorBody)))]
pub async fn create_own_api_key(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    Extension(origin): Extension<ClientOrigin>,
    JsonBody(body): JsonBody<StepUp>,
) -> ApiResult<Response> {
    let (secret, key) = api.services.auth.create_api_key(&principal, &origin, &body.password).await?;
    let body = CreatedApiKey { api_key: secret.expose().to_owned(), prefix: key.prefix };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// Removes the current admin's API key. Audited.
#[utoipa::path(delete, path = "/api/admin/auth/api-key", tag = "auth",
    responses((status = 204, description = "removed"), (status = "4XX", body = ErrorBody)))]
pub async fn delete_own_api_key(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
) -> ApiResult<Response> {
    api.services.auth.delete_api_key(&principal).await?;
    Ok(no_content())
}
