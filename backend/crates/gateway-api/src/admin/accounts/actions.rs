//! Provider actions on one account: refresh the credential now and test the connection. They
//! go through the `AccountActions` port; while no provider implements it the API answers
//! `501 not_implemented` (a designed, documented gap — not an error of the request).

use axum::Json;
use axum::extract::State;
use gateway_admin::AdminError;
use gateway_admin::ports::account_actions::{ConnectionTest, RefreshReport};
use gateway_core::domain::AccountId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::admin::AdminApi;
use crate::admin::envelope::{ApiResult, ErrorBody};
use crate::admin::extract::{IdPath, JsonBody};

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshResult {
    pub refreshed: bool,
    pub reason: Option<String>,
}

impl From<RefreshReport> for RefreshResult {
    fn from(r: RefreshReport) -> Self {
        Self { refreshed: r.refreshed, reason: r.reason }
    }
}

fn actions(api: &AdminApi) -> Result<&dyn gateway_admin::ports::AccountActions, AdminError> {
    api.ports.actions.as_deref().ok_or_else(|| {
        AdminError::NotImplemented("refresh and connection tests are not available in this build yet".to_owned())
    })
}

/// Refreshes the account's credential now (single-flight with the refresh worker).
#[utoipa::path(post, path = "/api/admin/accounts/{id}/refresh", tag = "accounts", params(("id" = i64, Path)),
    responses((status = 200, body = RefreshResult), (status = "4XX", body = ErrorBody), (status = 501, body = ErrorBody)))]
pub async fn refresh_account(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<RefreshResult>> {
    api.ports.accounts.get_account(AccountId(id)).await.map_err(AdminError::from)?;
    Ok(Json(actions(&api)?.refresh_now(AccountId(id)).await?.into()))
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct TestRequest {
    /// Model to test with (default: the provider's default).
    pub model: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestResult {
    pub ok: bool,
    pub model: String,
    pub http_status: Option<u16>,
    pub first_token_ms: Option<u64>,
    pub total_ms: u64,
    pub error_code: Option<String>,
}

impl From<ConnectionTest> for TestResult {
    fn from(t: ConnectionTest) -> Self {
        Self {
            ok: t.ok,
            model: t.model,
            http_status: t.http_status,
            first_token_ms: t.first_token_ms,
            total_ms: t.total_ms,
            error_code: t.error_code,
        }
    }
}

/// Sends a minimal real request through this account and reports the outcome.
#[utoipa::path(post, path = "/api/admin/accounts/{id}/test", tag = "accounts", params(("id" = i64, Path)),
    request_body = TestRequest,
    responses((status = 200, body = TestResult), (status = "4XX", body = ErrorBody), (status = 501, body = ErrorBody)))]
pub async fn test_account(
    State(api): State<AdminApi>,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody<TestRequest>,
) -> ApiResult<Json<TestResult>> {
    api.ports.accounts.get_account(AccountId(id)).await.map_err(AdminError::from)?;
    Ok(Json(actions(&api)?.test_connection(AccountId(id), body.model).await?.into()))
}
