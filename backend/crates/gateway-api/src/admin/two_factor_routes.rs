//! `/api/admin/auth/totp/*`: the current admin's optional TOTP second factor (RFC 6238,
//! SHA-1, 30 s, 6 digits). Enroll (password step-up) returns the secret once, as an
//! `otpauth://` URI and as base32 for manual entry; confirm with a first code turns it on (and
//! revokes the admin's other sessions); disable needs the password and a current code. From
//! then on `POST auth/login` needs `totp`.

use axum::extract::State;
use axum::response::Response;
use axum::{Extension, Json};
use gateway_admin::auth::totp::base32;
use gateway_admin::auth::{AdminPrincipal, ClientOrigin};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::auth_routes::StepUp;
use crate::admin::envelope::{ApiResult, ErrorBody, no_content};
use crate::admin::extract::JsonBody;

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new().routes(routes!(enroll)).routes(routes!(confirm)).routes(routes!(disable))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TotpEnrollmentView {
    /// Scan this into an authenticator app. Shown once: the secret is never returned again.
    pub otpauth_uri: String,
    /// The same secret in base32, for manual entry.
    pub secret: String,
    pub algorithm: String,
    pub digits: u32,
    pub period_seconds: u32,
}

/// Starts a TOTP enrollment for the current admin (needs the password); replaces a pending,
/// unconfirmed one. `409` while TOTP is enabled. Audited.
#[utoipa::path(post, path = "/api/admin/auth/totp/enroll", tag = "auth", request_body = StepUp,
    responses((status = 200, body = TotpEnrollmentView), (status = "4XX", body = ErrorBody)))]
pub async fn enroll(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    Extension(origin): Extension<ClientOrigin>,
    JsonBody(body): JsonBody<StepUp>,
) -> ApiResult<Json<TotpEnrollmentView>> {
    let enrollment = api.services.auth.enroll_totp(&principal, &origin, &body.password).await?;
    Ok(Json(TotpEnrollmentView {
        otpauth_uri: enrollment.otpauth_uri,
        secret: base32(enrollment.secret.expose()),
        algorithm: "SHA1".to_owned(),
        digits: gateway_admin::auth::totp::DIGITS,
        period_seconds: 30,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TotpCode {
    /// The 6-digit code the authenticator shows now.
    #[schema(min_length = 1, max_length = 16)]
    pub code: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TotpConfirmed {
    pub totp_enabled: bool,
    /// The admin's other sessions, revoked by turning TOTP on.
    pub revoked_sessions: u32,
}

/// Confirms the pending enrollment with a current code; TOTP is on from now. Audited.
#[utoipa::path(post, path = "/api/admin/auth/totp/confirm", tag = "auth", request_body = TotpCode,
    responses((status = 200, body = TotpConfirmed), (status = "4XX", body = ErrorBody)))]
pub async fn confirm(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    JsonBody(body): JsonBody<TotpCode>,
) -> ApiResult<Json<TotpConfirmed>> {
    let revoked = api.services.auth.confirm_totp(&principal, &body.code, OffsetDateTime::now_utc()).await?;
    Ok(Json(TotpConfirmed { totp_enabled: true, revoked_sessions: revoked }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TotpDisable {
    /// The current admin's password.
    pub password: String,
    /// A current TOTP code.
    #[schema(min_length = 1, max_length = 16)]
    pub code: String,
}

/// Turns TOTP off (or drops a pending enrollment); needs the password and a current code.
/// Counted against the login limits like a login (`429` at a limit). Audited.
#[utoipa::path(post, path = "/api/admin/auth/totp/disable", tag = "auth", request_body = TotpDisable,
    responses((status = 204, description = "disabled"), (status = "4XX", body = ErrorBody)))]
pub async fn disable(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    Extension(origin): Extension<ClientOrigin>,
    JsonBody(body): JsonBody<TotpDisable>,
) -> ApiResult<Response> {
    api.services.auth.disable_totp(&principal, &origin, &body.password, &body.code, OffsetDateTime::now_utc()).await?;
    Ok(no_content())
}
