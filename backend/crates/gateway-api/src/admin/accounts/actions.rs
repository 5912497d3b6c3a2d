//! Provider actions on one account: refresh the credential now, probe the quota now, and test
//! the connection, through the `AccountActions` port. What the upstream said about the account
//! is reported in a `200` body (`ok`/`refreshed` false + a stable `errorCode`); the envelope is
//! for errors of the request (unknown account, a provider without the capability, storage).

use axum::Json;
use axum::extract::State;
use gateway_admin::ports::account_actions::{ConnectionTest, ProbeReport, RefreshReport};
use gateway_core::domain::{AccountId, QuotaFacts};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::admin::AdminApi;
use crate::admin::account_view::QuotaView;
use crate::admin::envelope::{ApiResult, ErrorBody};
use crate::admin::extract::IdPath;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshResult {
    /// The credential is fresh now.
    pub refreshed: bool,
    /// Another caller (worker, data plane, another replica) had just renewed it.
    pub already_renewed: bool,
    pub credential_revision: Option<i64>,
    /// Why not refreshed: `credential_unusable` (the upstream refused the refresh token; see
    /// `message` for the reason), `refresh_failed` (transient; see `retryAt`),
    /// `no_refresh_token`, `credential_unreadable`, `refresh_in_progress`,
    /// `refresh_write_pending`.
    pub error_code: Option<String>,
    pub message: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub retry_at: Option<OffsetDateTime>,
}

impl From<RefreshReport> for RefreshResult {
    fn from(r: RefreshReport) -> Self {
        Self {
            refreshed: r.refreshed,
            already_renewed: r.already_renewed,
            credential_revision: r.credential_revision,
            error_code: r.error_code,
            message: r.message,
            retry_at: r.retry_at,
        }
    }
}

fn quota_view(quota: QuotaFacts) -> QuotaView {
    QuotaView {
        state: quota.state.as_str().to_owned(),
        windows: crate::admin::account_view::QuotaWindowView::list(&quota.windows),
        observed_at: quota.observed_at,
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeResult {
    pub ok: bool,
    /// The reading (stored) when the upstream answered with clear evidence.
    pub quota: Option<QuotaView>,
    /// `upstream_unauthorized`, `access_token_expired`, `credential_unreadable`,
    /// `upstream_unavailable`, `account_not_loaded` (just created: retry in a moment).
    pub error_code: Option<String>,
    pub message: Option<String>,
}

impl From<ProbeReport> for ProbeResult {
    fn from(r: ProbeReport) -> Self {
        Self { ok: r.ok, quota: r.quota.map(quota_view), error_code: r.error_code, message: r.message }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestResult {
    pub ok: bool,
    /// The credential was refreshed on the way (the upstream refused the access token).
    pub refreshed: bool,
    pub quota: Option<QuotaView>,
    /// A probe code (see `POST …/probe`) or a refresh code (see `POST …/refresh`).
    pub error_code: Option<String>,
    pub message: Option<String>,
    pub total_ms: u64,
}

impl From<ConnectionTest> for TestResult {
    fn from(t: ConnectionTest) -> Self {
        Self {
            ok: t.ok,
            refreshed: t.refreshed,
            quota: t.quota.map(quota_view),
            error_code: t.error_code,
            message: t.message,
            total_ms: t.total_ms,
        }
    }
}

/// Refreshes the account's credential now (single-flight with the refresh worker and the data
/// plane; a manual refresh also retries a credential marked unusable).
#[utoipa::path(post, path = "/api/admin/accounts/{id}/refresh", tag = "accounts", params(("id" = i64, Path)),
    responses((status = 200, body = RefreshResult), (status = "4XX", body = ErrorBody)))]
pub async fn refresh_account(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<RefreshResult>> {
    Ok(Json(api.services.accounts.refresh_now(AccountId(id)).await?.into()))
}

/// Reads the account's quota from the upstream now and stores a clear reading.
#[utoipa::path(post, path = "/api/admin/accounts/{id}/probe", tag = "accounts", params(("id" = i64, Path)),
    responses((status = 200, body = ProbeResult), (status = "4XX", body = ErrorBody)))]
pub async fn probe_account(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<ProbeResult>> {
    Ok(Json(api.services.accounts.probe_quota(AccountId(id)).await?.into()))
}

/// Tests the connection: reads the quota with the current credential, refreshes once if the
/// upstream refuses the access token, reads again, and reports.
#[utoipa::path(post, path = "/api/admin/accounts/{id}/test", tag = "accounts", params(("id" = i64, Path)),
    responses((status = 200, body = TestResult), (status = "4XX", body = ErrorBody)))]
pub async fn test_account(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<TestResult>> {
    Ok(Json(api.services.accounts.test_connection(AccountId(id)).await?.into()))
}
