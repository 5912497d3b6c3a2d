//! The OpenAI-compatible client API: `/v1/responses`, `/v1/chat/completions`, `/v1/models`.

mod body;
mod body_failure;
mod chat_completions;
mod codex_backend;
mod compact;
mod extract;
mod images;
mod models;
pub(crate) mod reply;
mod responses;
mod websocket;
mod zed;

use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use gateway_core::engine::Engine;

/// What the client routes share.
#[derive(Clone)]
pub struct ClientApi {
    pub engine: Arc<Engine>,
    /// Largest accepted request body; larger bodies get 413.
    pub body_limit: usize,
}

pub fn client_routes(api: ClientApi) -> Router {
    Router::new()
        .route("/v1/responses", post(responses::create).get(websocket::upgrade))
        .route("/v1/responses/compact", post(compact::create))
        .route("/v1/responses/review", post(responses::review))
        .route("/v1/images/generations", post(images::generations))
        .route("/v1/images/edits", post(images::edits))
        .route("/v1/chat/completions", post(chat_completions::create))
        .route("/v1/zed/edit-predictions", post(zed::create))
        .route("/v1/models", get(models::list))
        .route("/v1/models/{id}", get(models::get))
        .method_not_allowed_fallback(reply::method_not_allowed)
        .route("/v1/{*rest}", axum::routing::any(reply::not_found))
        .merge(codex_backend::routes())
        .with_state(api)
}

/// What connections beyond the server's connection cap are answered with: 503
/// `gateway_overloaded` with `Retry-After: 1`.
pub fn overloaded_routes() -> Router {
    Router::new().fallback(reply::overloaded)
}
