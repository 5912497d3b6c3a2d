//! The admin dashboard (the Vue SPA built into `frontend/dist`), served by the binary at `/`.
//!
//! - every GET/HEAD that no other route took lands here (the router's fallback);
//! - a file of the build is served with its content type; hashed files under `assets/` are
//!   cached forever (`immutable`), everything else revalidates (`no-cache` + `ETag`);
//! - a page route (a path whose last segment has no dot, outside the API prefixes) gets
//!   `index.html` so the SPA router can take over; a missing file, an API path or another
//!   method is the client API's 404 in the OpenAI error shape, never `index.html`, and no
//!   admin session is looked up;
//! - paths are decoded once and refused when a segment is `..`, `.`, empty or holds `\` or NUL;
//! - without a build (no `index.html`), page routes answer 503 with a page saying how to build it.

mod assets;
mod path;
mod response;

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use gateway_protocol::{ApiError, ErrorCode};

use crate::client::reply::not_found;

pub use assets::{Asset, DashboardAssets, EmbeddedDashboard};
pub use path::{SpaPath, classify};

/// Paths the SPA never answers: they belong to an API or the host.
pub const RESERVED_PREFIXES: &[&str] = &["api/", "v1/", "backend-api/"];
/// Exact paths the SPA never answers.
pub const RESERVED_PATHS: &[&str] = &["api", "v1", "healthz", "readyz", "metrics"];

/// The dashboard as a router to use as the server's fallback (state applied).
pub fn spa_routes(assets: Arc<dyn DashboardAssets>) -> Router {
    Router::new().fallback(serve).with_state(assets)
}

/// The dashboard embedded in this binary.
pub fn embedded_spa_routes() -> Router {
    spa_routes(Arc::new(EmbeddedDashboard))
}

async fn serve(
    State(assets): State<Arc<dyn DashboardAssets>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return not_found(method, uri).await;
    }
    let head = method == Method::HEAD;
    match classify(uri.path()) {
        SpaPath::Invalid => {
            crate::client::reply::error(&ApiError::new(ErrorCode::InvalidRequest, "The request path is not valid."))
        }
        SpaPath::Reserved => not_found(method, uri).await,
        SpaPath::File(file) => match assets.get(&file) {
            Some(asset) => response::asset(&file, &asset, &headers, head),
            None => not_found(method, uri).await,
        },
        SpaPath::Page(_) => match assets.get("index.html") {
            Some(index) => response::asset("index.html", &index, &headers, head),
            None => response::not_built(head),
        },
    }
}
