//! `/api/admin/ops-events`: redacted runtime events (refresh failures, recoveries, …).

use axum::Json;
use axum::extract::State;
use gateway_admin::ports::{OpsEventFilter, StoredOpsEvent};
use gateway_core::domain::{AccountId, OpsLevel, RequestId};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::dto::parse_time;
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody};
use crate::admin::extract::QueryParams;
use crate::admin::pagination;

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new().routes(routes!(list_ops_events))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpsEventItem {
    pub id: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub occurred_at: OffsetDateTime,
    /// debug, info, warn, error
    pub level: String,
    /// e.g. `credential.refresh_failed`
    pub kind: String,
    pub provider: Option<String>,
    pub account_id: Option<i64>,
    pub request_id: Option<String>,
    pub message: String,
    #[schema(value_type = Object)]
    pub details: serde_json::Value,
}

impl From<&StoredOpsEvent> for OpsEventItem {
    fn from(e: &StoredOpsEvent) -> Self {
        Self {
            id: e.id,
            occurred_at: e.event.occurred_at,
            level: e.event.level.as_str().to_owned(),
            kind: e.event.kind.clone(),
            provider: e.event.provider.map(|p| p.as_str().to_owned()),
            account_id: e.event.account_id.map(|a| a.0),
            request_id: e.event.request_id.map(|r| r.to_string()),
            message: e.event.message.clone(),
            details: if e.event.details.is_object() { e.event.details.clone() } else { serde_json::json!({}) },
        }
    }
}

#[derive(Deserialize, ToSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

impl From<Level> for OpsLevel {
    fn from(l: Level) -> Self {
        match l {
            Level::Debug => Self::Debug,
            Level::Info => Self::Info,
            Level::Warn => Self::Warn,
            Level::Error => Self::Error,
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct OpsQuery {
    #[param(format = DateTime)]
    pub from: Option<String>,
    #[param(format = DateTime)]
    pub to: Option<String>,
    /// This level and above.
    #[param(inline)]
    pub level: Option<Level>,
    /// Kind prefix, e.g. `credential.`
    pub kind: Option<String>,
    pub account: Option<i64>,
    /// Request id (UUID).
    pub request: Option<String>,
    pub cursor: Option<String>,
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpsEventList {
    pub items: Vec<OpsEventItem>,
    pub next_cursor: Option<String>,
}

/// Ops events, newest first.
#[utoipa::path(get, path = "/api/admin/ops-events", tag = "ops", params(OpsQuery),
    responses((status = 200, body = OpsEventList), (status = "4XX", body = ErrorBody)))]
pub async fn list_ops_events(
    State(api): State<AdminApi>,
    QueryParams(q): QueryParams<OpsQuery>,
) -> ApiResult<Json<OpsEventList>> {
    let limit = pagination::limit(q.limit)?;
    let before = pagination::decode_number(q.cursor.as_deref())?;
    let request = q
        .request
        .as_deref()
        .map(|r| uuid::Uuid::parse_str(r).map(RequestId).map_err(|_| ApiFailure::invalid("request", "must be a UUID")))
        .transpose()?;
    if q.kind.as_ref().is_some_and(|k| k.len() > 128 || k.contains('\0')) {
        return Err(ApiFailure::invalid("kind", "must be at most 128 characters"));
    }
    let filter = OpsEventFilter {
        from: parse_time("from", q.from.as_deref())?,
        to: parse_time("to", q.to.as_deref())?,
        level: q.level.map(Into::into),
        kind: q.kind,
        account: q.account.map(AccountId),
        request,
    };
    let mut rows = api.services.observability.ops_events(&filter, before, limit + 1).await?;
    let next_cursor = pagination::next_cursor(&mut rows, limit, |e| e.id.to_string());
    Ok(Json(OpsEventList { items: rows.iter().map(OpsEventItem::from).collect(), next_cursor }))
}
