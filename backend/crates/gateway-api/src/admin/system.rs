//! `/api/admin/system/version` and the OpenAPI document itself.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::envelope::{ApiResult, ErrorBody};

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new().routes(routes!(version))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VersionView {
    pub version: String,
    pub config_revision: i64,
}

#[utoipa::path(get, path = "/api/admin/system/version", tag = "system",
    responses((status = 200, body = VersionView), (status = "4XX", body = ErrorBody)))]
pub async fn version(State(api): State<AdminApi>) -> ApiResult<Json<VersionView>> {
    let (revision, _) = api.services.settings.runtime().await?;
    Ok(Json(VersionView { version: api.config.version.clone(), config_revision: revision.0 }))
}

/// This document (OpenAPI 3.1). Public: it describes the API, it holds no data.
#[utoipa::path(get, path = "/api/admin/openapi.json", tag = "system", security(()),
    responses((status = 200, description = "the OpenAPI document", content_type = "application/json")))]
pub async fn openapi_json(State(api): State<AdminApi>) -> Json<serde_json::Value> {
    Json(api.openapi.as_ref().clone())
}
