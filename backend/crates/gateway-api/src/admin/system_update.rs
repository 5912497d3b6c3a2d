//! The self-update under `/api/admin/system/*`: `GET update` (check), `POST update` (start),
//! `GET update/events` (progress, Server-Sent Events), `POST rollback`, `POST restart`.
//!
//! The work runs in the process host (`gateway_host::update`); these handlers decode, map its
//! refusals to the envelope (409 with a stable code and a message that says what to do instead)
//! and write the `system.*` audit row of each accepted request.

mod events;

use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use gateway_admin::auth::AdminPrincipal;
use gateway_host::update::{Requester, UpdateError, UpdateOutcome};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody};

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .routes(routes!(update_status, start_update))
        .routes(routes!(events::update_events))
        .routes(routes!(rollback))
        .routes(routes!(restart))
}

/// The newest release, as the release source describes it for this platform.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseView {
    pub version: String,
    /// The archive for this platform.
    pub asset: String,
    pub asset_size: Option<u64>,
    /// Whether the release carries a signature of its checksums.
    pub signed: bool,
}

/// How the last update, rollback or restart ended.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutcomeView {
    /// `update`, `rollback` or `restart`.
    pub action: String,
    pub from_version: String,
    pub to_version: Option<String>,
    /// `pending`, `installed`, `rolled_back`, `failed` or `restarted`.
    pub result: String,
    pub reason: Option<String>,
    pub requested_by: String,
    /// RFC 3339.
    pub at: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateView {
    pub current_version: String,
    /// `<os>-<arch>`, the archive this host needs.
    pub platform: String,
    /// Whether this process can update itself; `unavailableReason` says why not.
    pub available: bool,
    pub unavailable_reason: Option<String>,
    /// The configured `update.release_url`.
    pub release_source: Option<String>,
    /// Whether releases must be signed (`update.public_key` is set).
    pub signature_required: bool,
    pub latest: Option<ReleaseView>,
    /// Why the release source could not be read, when it could not.
    pub check_error: Option<String>,
    pub update_available: bool,
    /// The version a rollback would return to.
    pub previous_version: Option<String>,
    /// The running job's phase: `idle`, `checking`, `downloading`, `verifying`, `installing`,
    /// `restarting`, `failed`.
    pub phase: String,
    pub last_outcome: Option<OutcomeView>,
}

/// An accepted update, rollback or restart: the process restarts when it is ready; follow
/// `eventsUrl` for progress, then poll `GET /api/admin/system/update` for the outcome.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartedView {
    pub action: String,
    pub from_version: String,
    pub to_version: String,
    pub events_url: String,
}

const EVENTS_URL: &str = "/api/admin/system/update/events";

fn failure(error: &UpdateError) -> ApiFailure {
    let status = match error {
        UpdateError::Unavailable(_)
        | UpdateError::UpToDate { .. }
        | UpdateError::InProgress
        | UpdateError::NoPrevious => StatusCode::CONFLICT,
        UpdateError::Source(_) => StatusCode::BAD_GATEWAY,
        UpdateError::Verification(_) | UpdateError::Install(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiFailure::new(status, error.code(), error.to_string())
}

fn requester(principal: &AdminPrincipal) -> Requester {
    let actor = principal.actor();
    Requester { user_id: actor.user_id.map(|id| id.0), name: actor.name }
}

fn outcome_view(outcome: UpdateOutcome) -> OutcomeView {
    let at = i64::try_from(outcome.at_unix_seconds)
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_default();
    OutcomeView {
        action: outcome.action.as_str().to_owned(),
        from_version: outcome.from_version,
        to_version: outcome.to_version,
        result: outcome.result.as_str().to_owned(),
        reason: outcome.reason,
        requested_by: outcome.requested_by.name,
        at,
    }
}

async fn audit(api: &AdminApi, principal: &AdminPrincipal, action: &str, details: serde_json::Value) -> ApiResult<()> {
    api.services.system.record_event(principal.actor(), action, details).await.map_err(ApiFailure::from)
}

/// What this gateway runs, what the release source offers, and how the last update ended.
#[utoipa::path(get, path = "/api/admin/system/update", tag = "system",
    responses((status = 200, body = UpdateView), (status = "4XX", body = ErrorBody)))]
pub async fn update_status(State(api): State<AdminApi>) -> Json<UpdateView> {
    let updates = &api.updates;
    let unavailable_reason = updates.availability().err().map(|e| e.to_string());
    let (latest, check_error) = match updates.release_source() {
        None => (None, None),
        Some(_) => match updates.check().await {
            Ok(check) => (Some(check), None),
            Err(e) => (None, Some(e.to_string())),
        },
    };
    Json(UpdateView {
        current_version: updates.current_version().to_owned(),
        platform: updates.platform().to_owned(),
        available: unavailable_reason.is_none(),
        unavailable_reason,
        release_source: updates.release_source(),
        signature_required: updates.signature_required(),
        update_available: latest.as_ref().is_some_and(|c| c.update_available),
        latest: latest.map(|c| ReleaseView {
            version: c.latest_version,
            asset: c.asset,
            asset_size: c.asset_size,
            signed: c.signed,
        }),
        check_error,
        previous_version: updates.previous_version(),
        phase: serde_json::to_value(updates.progress().phase())
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        last_outcome: updates.last_outcome().map(outcome_view),
    })
}

/// Updates to the newest release: refused (409) in a container, without a release source, when
/// already up to date or while another run is going; otherwise 202 and the work continues in the
/// background, ending in a restart (with an automatic rollback if the new version fails its
/// health check). Audited `system.update`.
#[utoipa::path(post, path = "/api/admin/system/update", tag = "system",
    responses((status = 202, body = StartedView), (status = "4XX", body = ErrorBody), (status = 502, body = ErrorBody)))]
pub async fn start_update(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
) -> ApiResult<(StatusCode, Json<StartedView>)> {
    let check = api.updates.start_update(requester(&principal)).await.map_err(|e| failure(&e))?;
    let details =
        json!({"fromVersion": check.current_version, "toVersion": check.latest_version, "asset": check.asset});
    audit(&api, &principal, "system.update", details).await?;
    let view = StartedView {
        action: "update".into(),
        from_version: check.current_version,
        to_version: check.latest_version,
        events_url: EVENTS_URL.into(),
    };
    Ok((StatusCode::ACCEPTED, Json(view)))
}

/// Goes back to the previous version (kept by the last update) through the same health-checked
/// restart. 409 `no_previous_version` when there is none. Audited `system.rollback`.
#[utoipa::path(post, path = "/api/admin/system/rollback", tag = "system",
    responses((status = 202, body = StartedView), (status = "4XX", body = ErrorBody)))]
pub async fn rollback(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
) -> ApiResult<(StatusCode, Json<StartedView>)> {
    let updates = &api.updates;
    let from = updates.current_version().to_owned();
    let target = updates.start_rollback(requester(&principal)).map_err(|e| failure(&e))?;
    audit(&api, &principal, "system.rollback", json!({"fromVersion": from, "toVersion": target})).await?;
    let view = StartedView {
        action: "rollback".into(),
        from_version: from,
        to_version: target,
        events_url: EVENTS_URL.into(),
    };
    Ok((StatusCode::ACCEPTED, Json(view)))
}

/// Drains and restarts this process on the installed binary. Audited `system.restart`.
#[utoipa::path(post, path = "/api/admin/system/restart", tag = "system",
    responses((status = 202, body = StartedView), (status = "4XX", body = ErrorBody)))]
pub async fn restart(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
) -> ApiResult<(StatusCode, Json<StartedView>)> {
    let updates = &api.updates;
    let version = updates.current_version().to_owned();
    updates.start_restart(requester(&principal)).map_err(|e| failure(&e))?;
    audit(&api, &principal, "system.restart", json!({"version": version})).await?;
    let view = StartedView {
        action: "restart".into(),
        from_version: version.clone(),
        to_version: version,
        events_url: EVENTS_URL.into(),
    };
    Ok((StatusCode::ACCEPTED, Json(view)))
}
