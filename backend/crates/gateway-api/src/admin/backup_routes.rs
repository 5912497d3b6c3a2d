//! `/api/admin/backups`: list (with progress), run now, verify (full restore into a scratch
//! database), delete, and a 5-minute presigned download link behind step-up. Every action is
//! audited by the use cases in `gateway_admin::backup_actions`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use gateway_admin::auth::AdminPrincipal;
use gateway_admin::auth::ClientOrigin;
use gateway_admin::backup::{BackupId, BackupRecord, RowCounts};
use gateway_admin::backup_daemon::DOWNLOAD_LINK_TTL;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::auth_routes::StepUp;
use crate::admin::envelope::{ApiResult, ErrorBody, no_content};
use crate::admin::extract::{IdPath, JsonBody, QueryParams};
use crate::admin::pagination;

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .routes(routes!(list_backups, run_backup_now))
        .routes(routes!(get_backup, delete_backup_route))
        .routes(routes!(verify_backup_route))
        .routes(routes!(download_link))
}

/// A backup record. `bytesDone` grows while the job uploads (progress); `verifiedAt` is the
/// last full-restore check whose row counts matched.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupView {
    pub id: i64,
    /// `manual` or `scheduled`.
    pub trigger: String,
    /// `queued`, `dumping`, `uploading`, `completed`, `failed` or `deleting`.
    pub state: String,
    pub object_key: Option<String>,
    pub size_bytes: Option<u64>,
    pub bytes_done: u64,
    /// Hex SHA-256 of the object.
    pub sha256: Option<String>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    /// Rows per table at dump time.
    pub row_counts: Option<RowCounts>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub verified_at: Option<OffsetDateTime>,
    pub verify_error: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub started_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub finished_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

impl From<BackupRecord> for BackupView {
    fn from(r: BackupRecord) -> Self {
        Self {
            id: r.id.0,
            trigger: r.trigger.as_str().to_owned(),
            state: r.state.as_str().to_owned(),
            object_key: r.object_key,
            size_bytes: r.size_bytes,
            bytes_done: r.bytes_done,
            sha256: r.sha256.map(|d| d.iter().map(|b| format!("{b:02x}")).collect()),
            error_code: r.error_code,
            error_message: r.error_message,
            row_counts: r.row_counts,
            verified_at: r.verified_at,
            verify_error: r.verify_error,
            expires_at: r.expires_at,
            created_at: r.created_at,
            started_at: r.started_at,
            finished_at: r.finished_at,
            updated_at: r.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupList {
    pub items: Vec<BackupView>,
    pub next_cursor: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct BackupQuery {
    pub cursor: Option<String>,
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
}

/// Backups, newest first.
#[utoipa::path(get, path = "/api/admin/backups", tag = "backups", params(BackupQuery),
    responses((status = 200, body = BackupList), (status = "4XX", body = ErrorBody)))]
pub async fn list_backups(
    State(api): State<AdminApi>,
    QueryParams(q): QueryParams<BackupQuery>,
) -> ApiResult<Json<BackupList>> {
    let limit = pagination::limit(q.limit)?;
    let before = pagination::decode_number(q.cursor.as_deref())?.map(BackupId);
    let mut rows = api.services.backups.list(before, limit + 1).await?;
    let next_cursor = pagination::next_cursor(&mut rows, limit, |r| r.id.to_string());
    Ok(Json(BackupList { items: rows.into_iter().map(BackupView::from).collect(), next_cursor }))
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunBackup {
    /// Delete this backup after so many days (retention may delete it earlier).
    #[schema(minimum = 1, maximum = 36500)]
    pub expires_in_days: Option<u32>,
}

/// Queues a manual backup (`409` while another job is queued or running); the daemon starts
/// it within 30 s. Audited.
#[utoipa::path(post, path = "/api/admin/backups", tag = "backups", request_body = RunBackup,
    responses((status = 202, body = BackupView), (status = "4XX", body = ErrorBody)))]
pub async fn run_backup_now(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    JsonBody(body): JsonBody<RunBackup>,
) -> ApiResult<Response> {
    let record = api.services.backups.run(principal.actor(), body.expires_in_days).await?;
    Ok((StatusCode::ACCEPTED, Json(BackupView::from(record))).into_response())
}

#[utoipa::path(get, path = "/api/admin/backups/{id}", tag = "backups", params(("id" = i64, Path)),
    responses((status = 200, body = BackupView), (status = "4XX", body = ErrorBody)))]
pub async fn get_backup(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<BackupView>> {
    let record = api.services.backups.get(BackupId(id)).await?;
    Ok(Json(record.into()))
}

/// Deletes the object and then the record (`409` while the job runs). Audited.
#[utoipa::path(delete, path = "/api/admin/backups/{id}", tag = "backups", params(("id" = i64, Path)),
    responses((status = 204, description = "deleted"), (status = "4XX", body = ErrorBody)))]
pub async fn delete_backup_route(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
) -> ApiResult<Response> {
    api.services.backups.delete(principal.actor(), BackupId(id)).await?;
    Ok(no_content())
}

/// Restores the backup into a scratch database now and compares row counts with the dump's;
/// the outcome is stored in `verifiedAt` / `verifyError`. Audited.
#[utoipa::path(post, path = "/api/admin/backups/{id}/verify", tag = "backups", params(("id" = i64, Path)),
    responses((status = 200, body = BackupView), (status = "4XX", body = ErrorBody)))]
pub async fn verify_backup_route(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
) -> ApiResult<Json<BackupView>> {
    let record = api.services.backups.verify(principal.actor(), BackupId(id)).await?;
    Ok(Json(record.into()))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DownloadLink {
    /// A presigned GET URL of the object.
    pub url: String,
    pub expires_in_seconds: u64,
}

/// A 5-minute presigned download link; needs the admin's password (step-up). Audited (the
/// link itself is not).
#[utoipa::path(post, path = "/api/admin/backups/{id}/download-link", tag = "backups",
    params(("id" = i64, Path)), request_body = StepUp,
    responses((status = 200, body = DownloadLink), (status = "4XX", body = ErrorBody)))]
pub async fn download_link(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    Extension(origin): Extension<ClientOrigin>,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody<StepUp>,
) -> ApiResult<Json<DownloadLink>> {
    let url = api.services.backups.download_link(&principal, &origin, &body.password, BackupId(id)).await?;
    Ok(Json(DownloadLink { url, expires_in_seconds: DOWNLOAD_LINK_TTL.as_secs() }))
}
