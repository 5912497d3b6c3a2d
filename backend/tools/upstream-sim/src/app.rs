//! The whole HTTP surface, assembled in one place.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::response::Response;
use http::StatusCode;

use crate::request::plain_error;
use crate::state::SimState;
use crate::{appcast, codex, control, oauth, xai};

/// Every route of the simulator, under the configured prefixes.
pub fn router(state: Arc<SimState>) -> Router {
    let config = &state.config;
    let mut app = Router::new()
        .nest(&config.codex_base_path, codex::router(state.clone()))
        .nest(&config.xai_prefix, xai::router().merge(oauth::xai::router()))
        .nest(xai::compact::XAI_API_PREFIX, xai::api_router())
        .nest("/_sim", control::router())
        .merge(appcast::router());
    app = if config.oauth_base_path.is_empty() {
        app.merge(oauth::openai::router())
    } else {
        app.nest(&config.oauth_base_path, oauth::openai::router())
    };
    app.fallback(not_found).with_state(state)
}

async fn not_found(State(state): State<Arc<SimState>>, request: Request) -> Response {
    state.record(request.method().as_str(), &crate::request::original_uri(&request), request.headers(), b"", None);
    plain_error(StatusCode::NOT_FOUND, "Not Found")
}
