//! `GET /v1/models` and `GET /v1/models/{id}` in the OpenAI list shape; with
//! `?client_version=` (what Codex sends) the Codex catalog shape, as on
//! `GET /backend-api/codex/models`.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use gateway_core::provider::ModelInfo;
use gateway_protocol::codex_catalog::{self, CatalogItem};
use gateway_protocol::{ApiError, ErrorCode};
use serde_json::{Value, json};

use super::{ClientApi, extract, reply};

/// A fixed creation time: the catalog has no per-model dates.
const CREATED: i64 = 1_700_000_000;

fn model_json(model: &ModelInfo) -> Value {
    json!({"id": model.id, "object": "model", "created": CREATED, "owned_by": model.owned_by})
}

/// The query of a models list.
#[derive(serde::Deserialize)]
pub struct ListQuery {
    /// Set by Codex (`MAJOR.MINOR.PATCH`): answer in the Codex catalog shape.
    client_version: Option<String>,
}

pub async fn list(State(api): State<ClientApi>, headers: HeaderMap, Query(query): Query<ListQuery>) -> Response {
    if query.client_version.is_some() {
        return codex_catalog(&api, &headers);
    }
    match api.engine.models(extract::api_key(&headers).as_deref()) {
        Ok(models) => {
            Json(json!({"object": "list", "data": models.iter().map(model_json).collect::<Vec<_>>()})).into_response()
        }
        Err(error) => reply::error(&error),
    }
}

/// The models visible to the key in the Codex catalog shape (`{"models":[ModelInfo…]}`): the
/// upstream's own entry where a catalog of the key's accounts has one, else the neutral entry.
pub fn codex_catalog(api: &ClientApi, headers: &HeaderMap) -> Response {
    match api.engine.catalog_models(extract::api_key(headers).as_deref()) {
        Ok(models) => {
            let items = models.iter().map(|model| match &model.upstream_entry {
                Some(entry) => CatalogItem::Upstream { json: entry.json(), priority: entry.priority() },
                None => CatalogItem::Neutral(&model.info.id),
            });
            ([(header::CONTENT_TYPE, "application/json")], codex_catalog::catalog_body(items)).into_response()
        }
        Err(error) => reply::error(&error),
    }
}

pub async fn get(State(api): State<ClientApi>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    match api.engine.models(extract::api_key(&headers).as_deref()) {
        Ok(models) => match models.iter().find(|m| m.id == id) {
            Some(model) => Json(model_json(model)).into_response(),
            None => reply::error(
                &ApiError::new(
                    ErrorCode::ModelNotFound,
                    format!("The model `{id}` does not exist or you do not have access to it."),
                )
                .with_param("model"),
            ),
        },
        Err(error) => reply::error(&error),
    }
}
