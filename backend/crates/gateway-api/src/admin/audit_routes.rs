//! `/api/admin/audit*`: the hash-chained audit trail — filtered list, one row, verification.

use axum::Json;
use axum::extract::State;
use gateway_admin::audit::AuditEvent;
use gateway_admin::ports::AuditFilter;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::dto::parse_time;
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody};
use crate::admin::extract::{IdPath, QueryParams};
use crate::admin::pagination;

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new().routes(routes!(list_audit)).routes(routes!(get_audit)).routes(routes!(verify_audit))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditItem {
    pub id: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub occurred_at: OffsetDateTime,
    pub actor_user_id: Option<i64>,
    /// Name at the time (admin, `bootstrap`, `cli`, `name (api key)`).
    pub actor_name: String,
    /// e.g. `client_key.update`
    pub action: String,
    pub target_kind: String,
    pub target_id: Option<String>,
    /// Redacted details (secrets never appear), e.g. `{"routing_scope": "groups -> all"}`.
    #[schema(value_type = Object)]
    pub details: serde_json::Value,
    /// The config revision after the change.
    pub config_revision: i64,
    pub prev_hash: Option<String>,
    pub row_hash: String,
}

impl From<&AuditEvent> for AuditItem {
    fn from(e: &AuditEvent) -> Self {
        Self {
            id: e.id,
            occurred_at: e.occurred_at,
            actor_user_id: e.actor.user_id.map(|u| u.0),
            actor_name: e.actor.name.clone(),
            action: e.action.clone(),
            target_kind: e.target_kind.clone(),
            target_id: e.target_id.clone(),
            details: if e.details.is_object() { e.details.clone() } else { serde_json::json!({}) },
            config_revision: e.config_revision.0,
            prev_hash: e.prev_hash.map(|h| hex(&h)),
            row_hash: hex(&e.row_hash),
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    #[param(format = DateTime)]
    pub from: Option<String>,
    #[param(format = DateTime)]
    pub to: Option<String>,
    /// Actor name, exact (case-insensitive).
    pub actor: Option<String>,
    /// Action prefix, e.g. `client_key.`
    pub action: Option<String>,
    pub target_kind: Option<String>,
    pub target_id: Option<String>,
    pub cursor: Option<String>,
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditList {
    pub items: Vec<AuditItem>,
    pub next_cursor: Option<String>,
}

fn bounded(field: &str, value: &Option<String>) -> ApiResult<Option<String>> {
    match value {
        Some(v) if v.len() > 256 || v.contains('\0') => {
            Err(ApiFailure::invalid(field, "must be at most 256 characters"))
        }
        other => Ok(other.clone()),
    }
}

/// Audit rows, newest first.
#[utoipa::path(get, path = "/api/admin/audit", tag = "audit", params(AuditQuery),
    responses((status = 200, body = AuditList), (status = "4XX", body = ErrorBody)))]
pub async fn list_audit(
    State(api): State<AdminApi>,
    QueryParams(q): QueryParams<AuditQuery>,
) -> ApiResult<Json<AuditList>> {
    let limit = pagination::limit(q.limit)?;
    let before = pagination::decode_number(q.cursor.as_deref())?;
    let filter = AuditFilter {
        from: parse_time("from", q.from.as_deref())?,
        to: parse_time("to", q.to.as_deref())?,
        actor: bounded("actor", &q.actor)?,
        action: bounded("action", &q.action)?,
        target_kind: bounded("targetKind", &q.target_kind)?,
        target_id: bounded("targetId", &q.target_id)?,
    };
    let mut rows = api.services.observability.audit_events(&filter, before, limit + 1).await?;
    let next_cursor = pagination::next_cursor(&mut rows, limit, |e| e.id.to_string());
    Ok(Json(AuditList { items: rows.iter().map(AuditItem::from).collect(), next_cursor }))
}

#[utoipa::path(get, path = "/api/admin/audit/{id}", tag = "audit", params(("id" = i64, Path)),
    responses((status = 200, body = AuditItem), (status = "4XX", body = ErrorBody)))]
pub async fn get_audit(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<AuditItem>> {
    let event = api.services.observability.audit_event(id).await?;
    Ok(Json(AuditItem::from(&event)))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditVerification {
    /// Every row's hash and link matched.
    pub intact: bool,
    /// The first row whose hash or link does not match (edited, inserted or removed rows).
    pub first_broken_id: Option<i64>,
    #[serde(with = "time::serde::rfc3339")]
    pub checked_at: OffsetDateTime,
}

/// Walks the whole chain and reports the first broken row.
#[utoipa::path(post, path = "/api/admin/audit/verify", tag = "audit",
    responses((status = 200, body = AuditVerification), (status = "4XX", body = ErrorBody)))]
pub async fn verify_audit(State(api): State<AdminApi>) -> ApiResult<Json<AuditVerification>> {
    let broken = api.services.observability.verify_audit_chain().await?;
    Ok(Json(AuditVerification {
        intact: broken.is_none(),
        first_broken_id: broken,
        checked_at: OffsetDateTime::now_utc(),
    }))
}
