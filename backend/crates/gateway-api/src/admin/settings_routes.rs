//! `/api/admin/settings` (runtime settings, `If-Match: <configRevision>` for optimistic
//! concurrency) and `/api/admin/backups/settings` (storage secrets write-only).

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::{Extension, Json};
use gateway_admin::auth::AdminPrincipal;
use gateway_admin::backup::BackupSettings;
use gateway_admin::backup_settings::BackupSettingsInput;
use gateway_core::domain::{ConfigRevision, RotationStrategy, RuntimeSettings};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody};
use crate::admin::extract::JsonBody;

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .routes(routes!(get_settings, patch_settings))
        .routes(routes!(get_backup_settings, put_backup_settings))
}

#[derive(Serialize, Deserialize, ToSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    Smart,
    QuotaResetPriority,
    RoundRobin,
    Sticky,
}

impl From<RotationStrategy> for Strategy {
    fn from(s: RotationStrategy) -> Self {
        match s {
            RotationStrategy::Smart => Self::Smart,
            RotationStrategy::QuotaResetPriority => Self::QuotaResetPriority,
            RotationStrategy::RoundRobin => Self::RoundRobin,
            RotationStrategy::Sticky => Self::Sticky,
        }
    }
}

impl From<Strategy> for RotationStrategy {
    fn from(s: Strategy) -> Self {
        match s {
            Strategy::Smart => Self::Smart,
            Strategy::QuotaResetPriority => Self::QuotaResetPriority,
            Strategy::RoundRobin => Self::RoundRobin,
            Strategy::Sticky => Self::Sticky,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsValues {
    /// Exact client model name → model to route.
    pub model_aliases: BTreeMap<String, String>,
    pub rotation_strategy: Strategy,
    pub default_account_concurrency: u32,
    pub request_interval_ms: u32,
    pub refresh_margin_seconds: u32,
    pub refresh_concurrency: u32,
    pub request_retention_days: u32,
    pub ops_event_retention_days: u32,
}

impl From<&RuntimeSettings> for SettingsValues {
    fn from(s: &RuntimeSettings) -> Self {
        Self {
            model_aliases: s.model_aliases.clone(),
            rotation_strategy: s.rotation_strategy.into(),
            default_account_concurrency: s.default_account_concurrency,
            request_interval_ms: s.request_interval_ms,
            refresh_margin_seconds: s.refresh_margin_seconds,
            refresh_concurrency: s.refresh_concurrency,
            request_retention_days: s.request_retention_days,
            ops_event_retention_days: s.ops_event_retention_days,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    /// Send as `If-Match` with a change to refuse it if someone else changed the settings.
    pub config_revision: i64,
    pub settings: SettingsValues,
}

#[utoipa::path(get, path = "/api/admin/settings", tag = "settings",
    responses((status = 200, body = SettingsView), (status = "4XX", body = ErrorBody)))]
pub async fn get_settings(State(api): State<AdminApi>) -> ApiResult<Json<SettingsView>> {
    let (revision, settings) = api.services.settings.runtime().await?;
    Ok(Json(SettingsView { config_revision: revision.0, settings: SettingsValues::from(&settings) }))
}

/// Fields to change; absent fields are kept. `modelAliases` replaces the whole map.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsChanges {
    pub model_aliases: Option<BTreeMap<String, String>>,
    pub rotation_strategy: Option<Strategy>,
    #[schema(minimum = 1, maximum = 10000)]
    pub default_account_concurrency: Option<u32>,
    #[schema(minimum = 0, maximum = 3600000)]
    pub request_interval_ms: Option<u32>,
    #[schema(minimum = 0, maximum = 86400)]
    pub refresh_margin_seconds: Option<u32>,
    #[schema(minimum = 1, maximum = 256)]
    pub refresh_concurrency: Option<u32>,
    #[schema(minimum = 1, maximum = 3650)]
    pub request_retention_days: Option<u32>,
    #[schema(minimum = 1, maximum = 3650)]
    pub ops_event_retention_days: Option<u32>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsUpdated {
    pub config_revision: i64,
    pub settings: SettingsValues,
    /// The values before the change (for undo).
    pub previous: SettingsValues,
}

fn if_match(headers: &HeaderMap) -> ApiResult<Option<ConfigRevision>> {
    let Some(value) = headers.get(axum::http::header::IF_MATCH) else { return Ok(None) };
    let text = value.to_str().unwrap_or_default().trim().trim_start_matches("W/").trim_matches('"');
    text.parse::<i64>()
        .map(|r| Some(ConfigRevision(r)))
        .map_err(|_| ApiFailure::invalid("If-Match", "must be a config revision number"))
}

/// Changes runtime settings in one audited transaction. With `If-Match: <configRevision>` the
/// change is refused (412 `revision_mismatch`) when the configuration changed meanwhile.
#[utoipa::path(patch, path = "/api/admin/settings", tag = "settings", request_body = SettingsChanges,
    params(("If-Match" = Option<String>, Header, description = "expected config revision")),
    responses((status = 200, body = SettingsUpdated), (status = "4XX", body = ErrorBody)))]
pub async fn patch_settings(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<SettingsChanges>,
) -> ApiResult<Json<SettingsUpdated>> {
    let expected = if_match(&headers)?;
    let change = |current: &RuntimeSettings| RuntimeSettings {
        model_aliases: body.model_aliases.unwrap_or_else(|| current.model_aliases.clone()),
        rotation_strategy: body.rotation_strategy.map_or(current.rotation_strategy, Into::into),
        default_account_concurrency: body.default_account_concurrency.unwrap_or(current.default_account_concurrency),
        request_interval_ms: body.request_interval_ms.unwrap_or(current.request_interval_ms),
        refresh_margin_seconds: body.refresh_margin_seconds.unwrap_or(current.refresh_margin_seconds),
        refresh_concurrency: body.refresh_concurrency.unwrap_or(current.refresh_concurrency),
        request_retention_days: body.request_retention_days.unwrap_or(current.request_retention_days),
        ops_event_retention_days: body.ops_event_retention_days.unwrap_or(current.ops_event_retention_days),
    };
    let (before, next, revision) = api.services.settings.update_runtime(principal.actor(), expected, change).await?;
    Ok(Json(SettingsUpdated {
        config_revision: revision.0,
        settings: SettingsValues::from(&next),
        previous: SettingsValues::from(&before),
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupSettingsView {
    pub enabled: bool,
    pub endpoint: String,
    pub region: String,
    pub bucket: String,
    pub path_style: bool,
    pub prefix: String,
    /// Whether storage keys are stored (they are never returned).
    pub credentials_configured: bool,
    pub schedule_cron: Option<String>,
    pub retention_count: Option<u32>,
    pub retention_days: Option<u32>,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

impl From<BackupSettings> for BackupSettingsView {
    fn from(s: BackupSettings) -> Self {
        Self {
            enabled: s.enabled,
            endpoint: s.endpoint,
            region: s.region,
            bucket: s.bucket,
            path_style: s.path_style,
            prefix: s.prefix,
            credentials_configured: s.has_credentials,
            schedule_cron: s.schedule_cron,
            retention_count: s.retention_count,
            retention_days: s.retention_days,
            updated_at: s.updated_at,
        }
    }
}

#[utoipa::path(get, path = "/api/admin/backups/settings", tag = "backups",
    responses((status = 200, body = BackupSettingsView), (status = "4XX", body = ErrorBody)))]
pub async fn get_backup_settings(State(api): State<AdminApi>) -> ApiResult<Json<BackupSettingsView>> {
    let settings = api.services.settings.backup().await?;
    Ok(Json(settings.into()))
}

/// The whole settings object. `accessKeyId` + `secretAccessKey` together replace the stored
/// keys (write-only); both absent keep them, or clear them with `clearCredentials`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BackupSettingsBody {
    pub enabled: bool,
    /// The S3-compatible endpoint, e.g. `https://s3.eu-west-1.amazonaws.com`; empty = none.
    /// Checked by the URL guard: `https`, no user or password in it, and every address it
    /// resolves to public (private ones only with `admin.allow_private_urls`; cloud metadata
    /// never).
    #[schema(max_length = 2048)]
    pub endpoint: String,
    #[serde(default)]
    #[schema(max_length = 64)]
    pub region: String,
    #[schema(max_length = 255)]
    pub bucket: String,
    #[serde(default)]
    pub path_style: bool,
    #[serde(default)]
    #[schema(max_length = 1024)]
    pub prefix: String,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    #[serde(default)]
    pub clear_credentials: bool,
    /// 5-field cron expression (minute hour day-of-month month day-of-week), optionally prefixed with a time zone: `CRON_TZ=Europe/Berlin` (IANA, daylight saving followed), `CRON_TZ=UTC` or `CRON_TZ=+02:00`.
    pub schedule_cron: Option<String>,
    #[schema(minimum = 1)]
    pub retention_count: Option<u32>,
    #[schema(minimum = 1)]
    pub retention_days: Option<u32>,
}

/// Replaces the backup settings (storage identity is locked once records exist). Audited
/// without the secrets.
#[utoipa::path(put, path = "/api/admin/backups/settings", tag = "backups", request_body = BackupSettingsBody,
    responses((status = 200, body = BackupSettingsView), (status = "4XX", body = ErrorBody)))]
pub async fn put_backup_settings(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    JsonBody(body): JsonBody<BackupSettingsBody>,
) -> ApiResult<Json<BackupSettingsView>> {
    let input = BackupSettingsInput {
        enabled: body.enabled,
        endpoint: body.endpoint,
        region: body.region,
        bucket: body.bucket,
        path_style: body.path_style,
        prefix: body.prefix,
        access_key_id: body.access_key_id,
        secret_access_key: body.secret_access_key,
        clear_credentials: body.clear_credentials,
        schedule_cron: body.schedule_cron,
        retention_count: body.retention_count,
        retention_days: body.retention_days,
    };
    let settings = api.services.settings.update_backup(principal.actor(), input).await?;
    Ok(Json(settings.into()))
}
