//! `/api/admin/oauth/{provider}/*`: interactive logins of upstream accounts for the accounts
//! pages — the browser paste-back flow (start → consent → paste the address the browser landed
//! on → complete) and the device-code flow (start → approve on another device → poll). With
//! `accountId` a flow re-authorises that account instead of adding one.
//!
//! Flows are owned by the admin user who started them (`OAuthOwner("admin:<user id>")`): one
//! admin cannot complete or poll another's flow (`403 oauth_flow_not_owned`, the flow is left
//! untouched). Completion is audited by the use case (`account.oauth_login` /
//! `account.reauthorize`).
//!
//! Every upstream call of a flow goes through an egress proxy when one applies (decision 0247):
//! the start names `egressProxy` (a URL) or `groupId` (that group's proxy), else the default
//! proxy applies; a re-authorisation uses its account's proxy and names none. A new account
//! keeps a named proxy as its own.

use axum::extract::{FromRequestParts, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::{Extension, Json};
use gateway_admin::auth::AdminPrincipal;
use gateway_admin::oauth::{
    DeviceLoginPoll, DeviceLoginStarted, LoginCompleted, LoginProxy, LoginStarted, OAuthError, OAuthOwner,
};
use gateway_core::domain::{AccountId, GroupId, ProviderKind};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::dto::Provider;
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody, FieldProblem};
use crate::admin::extract::JsonBody;

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .routes(routes!(start_login))
        .routes(routes!(complete_login))
        .routes(routes!(start_device_login))
        .routes(routes!(poll_device_login))
}

/// The `{provider}` of the path (`openai`, `xai`).
pub struct ProviderPath(pub ProviderKind);

impl<S: Send + Sync> FromRequestParts<S> for ProviderPath {
    type Rejection = ApiFailure;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let axum::extract::Path(raw) = axum::extract::Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiFailure::invalid("provider", "missing"))?;
        match raw.as_str() {
            "openai" => Ok(Self(Provider::Openai.into())),
            "xai" => Ok(Self(Provider::Xai.into())),
            _ => Err(ApiFailure::invalid("provider", "must be openai or xai")),
        }
    }
}

/// The owner of flows started by this admin.
fn owner(principal: &AdminPrincipal) -> OAuthOwner {
    OAuthOwner(format!("admin:{}", principal.user_id.0))
}

/// A login failure in the admin envelope; request mistakes name their field.
fn failure(error: OAuthError) -> ApiFailure {
    let status = match &error {
        // Validation is 422 everywhere in the admin API.
        OAuthError::WrongProvider(_) => StatusCode::UNPROCESSABLE_ENTITY,
        other => StatusCode::from_u16(other.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    };
    let message = match &error {
        // Storage and coordination details stay in the log.
        OAuthError::Storage(_) | OAuthError::Coordination(_) => {
            tracing::warn!(code = error.code(), error = %error, "admin login step failed");
            "storage is unavailable; try again".to_owned()
        }
        other => other.to_string(),
    };
    let field = match &error {
        OAuthError::Callback(_) => Some("callbackUrl"),
        OAuthError::WrongProvider(_) => Some("accountId"),
        OAuthError::InvalidProxy { field, .. } => Some(*field),
        _ => None,
    };
    let mut out = ApiFailure::new(status, error.code(), message.clone());
    if let Some(field) = field {
        out.body.error.fields.push(FieldProblem { field: field.to_owned(), message });
    }
    out
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartRequest {
    /// Re-authorise this existing account (same upstream account only) instead of adding one.
    pub account_id: Option<i64>,
    /// Log in through this egress proxy (`http://[user:pass@]host[:port]` or `socks5://…`,
    /// write-only); the new account keeps it as its own. Not with `accountId` or `groupId`.
    #[schema(max_length = 2048)]
    pub egress_proxy: Option<String>,
    /// Log in through this group's egress proxy; the new account keeps it as its own.
    pub group_id: Option<i64>,
}

impl StartRequest {
    fn target(&self) -> Option<AccountId> {
        self.account_id.map(AccountId)
    }

    /// The proxy the start asks for (at most one of `egressProxy`, `groupId`).
    fn proxy(&self) -> Result<LoginProxy, ApiFailure> {
        match (&self.egress_proxy, self.group_id) {
            (Some(_), Some(_)) => Err(ApiFailure::invalid("groupId", "name either egressProxy or groupId, not both")),
            (Some(url), None) => Ok(LoginProxy::Url(url.clone())),
            (None, Some(id)) => Ok(LoginProxy::Group(GroupId(id))),
            (None, None) => Ok(LoginProxy::Default),
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginStartedView {
    #[schema(inline)]
    pub provider: Provider,
    /// The flow's id (its OAuth `state`).
    pub flow_id: String,
    /// Open this address in a browser and consent.
    pub authorize_url: String,
    /// The browser lands here after consent; it need not load — paste its address back.
    pub redirect_uri: String,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
}

impl From<LoginStarted> for LoginStartedView {
    fn from(s: LoginStarted) -> Self {
        Self {
            provider: s.provider.into(),
            flow_id: s.flow_id,
            authorize_url: s.authorize_url,
            redirect_uri: s.redirect_uri,
            expires_at: s.expires_at,
        }
    }
}

/// Starts a browser login: returns the authorize address and the flow id (valid 10 minutes).
#[utoipa::path(post, path = "/api/admin/oauth/{provider}/start", tag = "oauth",
    params(("provider" = inline(Provider), Path, description = "`openai` or `xai`")),
    request_body = StartRequest,
    responses((status = 200, body = LoginStartedView), (status = "4XX", body = ErrorBody),
        (status = 502, description = "the upstream failed", body = ErrorBody)))]
pub async fn start_login(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    ProviderPath(provider): ProviderPath,
    JsonBody(body): JsonBody<StartRequest>,
) -> ApiResult<Json<LoginStartedView>> {
    let proxy = body.proxy()?;
    let logins = api.services.accounts.logins();
    let started = logins.start_login_via(provider, body.target(), &proxy, &owner(&principal)).await.map_err(failure)?;
    Ok(Json(started.into()))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompleteRequest {
    /// The whole address the browser landed on after consent (or only its query).
    #[schema(min_length = 1, max_length = 8192)]
    pub callback_url: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginCompletedView {
    pub account_id: i64,
    /// A new account was created (`false`: an existing one got the new credential).
    pub created: bool,
    /// The flow re-authorised the account it was started for.
    pub reauthorized: bool,
    pub external_account_id: String,
    pub email: Option<String>,
    /// `active`, or `unverified` when the tokens carried no identity claims.
    pub credential_state: String,
}

impl From<LoginCompleted> for LoginCompletedView {
    fn from(d: LoginCompleted) -> Self {
        Self {
            account_id: d.account_id.0,
            created: d.created,
            reauthorized: d.reauthorized,
            external_account_id: d.external_account_id,
            email: d.email,
            credential_state: d.credential_state,
        }
    }
}

/// Completes a browser login with the pasted callback address; stores the account (or the
/// re-authorised credential). Only the admin who started the flow can complete it, once.
#[utoipa::path(post, path = "/api/admin/oauth/{provider}/complete", tag = "oauth",
    params(("provider" = inline(Provider), Path)),
    request_body = CompleteRequest,
    responses((status = 200, body = LoginCompletedView), (status = "4XX", body = ErrorBody),
        (status = 502, description = "the upstream failed", body = ErrorBody)))]
pub async fn complete_login(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    ProviderPath(provider): ProviderPath,
    JsonBody(body): JsonBody<CompleteRequest>,
) -> ApiResult<Json<LoginCompletedView>> {
    let done = api
        .services
        .accounts
        .logins()
        .complete_login(provider, &body.callback_url, &owner(&principal), principal.actor())
        .await
        .map_err(failure)?;
    Ok(Json(done.into()))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceStartedView {
    #[schema(inline)]
    pub provider: Provider,
    /// Poll with this id.
    pub flow_id: String,
    /// The code to enter at `verificationUrl`.
    pub user_code: String,
    pub verification_url: String,
    /// Poll no more often than this.
    pub interval_seconds: u64,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
}

impl From<DeviceLoginStarted> for DeviceStartedView {
    fn from(s: DeviceLoginStarted) -> Self {
        Self {
            provider: s.provider.into(),
            flow_id: s.flow_id,
            user_code: s.user_code,
            verification_url: s.verification_url,
            interval_seconds: s.interval.as_secs().max(1),
            expires_at: s.expires_at,
        }
    }
}

/// Starts a device-code login: returns the user code and where to enter it.
#[utoipa::path(post, path = "/api/admin/oauth/{provider}/device/start", tag = "oauth",
    params(("provider" = inline(Provider), Path)),
    request_body = StartRequest,
    responses((status = 200, body = DeviceStartedView), (status = "4XX", body = ErrorBody),
        (status = 502, description = "the upstream failed", body = ErrorBody)))]
pub async fn start_device_login(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    ProviderPath(provider): ProviderPath,
    JsonBody(body): JsonBody<StartRequest>,
) -> ApiResult<Json<DeviceStartedView>> {
    let proxy = body.proxy()?;
    let logins = api.services.accounts.logins();
    let started =
        logins.start_device_login_via(provider, body.target(), &proxy, &owner(&principal)).await.map_err(failure)?;
    Ok(Json(started.into()))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PollRequest {
    #[schema(min_length = 1, max_length = 128)]
    pub flow_id: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DevicePollStatus {
    Pending,
    Completed,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DevicePollView {
    #[schema(inline)]
    pub status: DevicePollStatus,
    /// While pending: poll again after this many seconds.
    pub interval_seconds: Option<u64>,
    /// Once completed: the account the login ended in.
    pub account: Option<LoginCompletedView>,
}

/// Polls a device login once (a mutation: an approved login stores the account). Only the
/// admin who started the flow can poll it.
#[utoipa::path(post, path = "/api/admin/oauth/{provider}/device/poll", tag = "oauth",
    params(("provider" = inline(Provider), Path)),
    request_body = PollRequest,
    responses((status = 200, body = DevicePollView), (status = "4XX", body = ErrorBody),
        (status = 502, description = "the upstream failed", body = ErrorBody)))]
pub async fn poll_device_login(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    ProviderPath(provider): ProviderPath,
    JsonBody(body): JsonBody<PollRequest>,
) -> ApiResult<Json<DevicePollView>> {
    let poll = api
        .services
        .accounts
        .logins()
        .poll_device_login(provider, &body.flow_id, &owner(&principal), principal.actor())
        .await
        .map_err(failure)?;
    Ok(Json(match poll {
        DeviceLoginPoll::Pending { interval } => DevicePollView {
            status: DevicePollStatus::Pending,
            interval_seconds: Some(interval.as_secs().max(1)),
            account: None,
        },
        DeviceLoginPoll::Completed(done) => {
            DevicePollView { status: DevicePollStatus::Completed, interval_seconds: None, account: Some(done.into()) }
        }
    }))
}
