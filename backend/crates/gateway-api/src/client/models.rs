//! `GET /v1/models` and `GET /v1/models/{id}` in the OpenAI list shape.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use gateway_core::provider::ModelInfo;
use gateway_protocol::{ApiError, ErrorCode};
use serde_json::{Value, json};

use super::{ClientApi, extract, reply};

/// A fixed creation time: the catalog has no per-model dates.
const CREATED: i64 = 1_700_000_000;

fn model_json(model: &ModelInfo) -> Value {
    json!({"id": model.id, "object": "model", "created": CREATED, "owned_by": model.owned_by})
}

pub async fn list(State(api): State<ClientApi>, headers: HeaderMap) -> Response {
    match api.engine.models(extract::api_key(&headers).as_deref()) {
        Ok(models) => {
            Json(json!({"object": "list", "data": models.iter().map(model_json).collect::<Vec<_>>()})).into_response()
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
