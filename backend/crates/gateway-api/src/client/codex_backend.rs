//! Codex-CLI compatibility routes for clients configured as ChatGPT-backend clients
//! (`chatgpt_base_url` / a provider `base_url` of `…/backend-api/codex`): the same engine behind
//! the paths the ChatGPT backend serves. The client key rides where Codex puts its access
//! token (`Authorization: Bearer`, from `auth.json`); the `chatgpt-account-id` it sends names
//! no account here and is ignored (the gateway picks the account).
//!
//! | path | answer |
//! | --- | --- |
//! | `POST /backend-api/codex/responses` (+ WebSocket `GET`) | as `/v1/responses` |
//! | `POST /backend-api/codex/responses/compact` | as `/v1/responses/compact` |
//! | `GET /backend-api/codex/models?client_version=` | the Codex catalog of the key's models |
//! | `GET /backend-api/wham/usage` | the pool's quota windows (`Engine::pool_usage`) |
//! | any other `/backend-api/*` | 404 in the OpenAI error shape (Codex carries on) |

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use gateway_core::domain::ProviderKind;
use gateway_core::engine::pool_usage::{PoolUsage, PoolWindow};
use serde_json::{Value, json};

use super::{ClientApi, compact, extract, models, reply, responses, websocket};

pub fn routes() -> Router<ClientApi> {
    Router::new()
        .route("/backend-api/codex/responses", post(responses::create).get(websocket::upgrade))
        .route("/backend-api/codex/responses/compact", post(compact::create))
        .route("/backend-api/codex/models", get(codex_models))
        .route("/backend-api/wham/usage", get(usage))
        .route("/backend-api/{*rest}", any(reply::not_found))
}

async fn codex_models(State(api): State<ClientApi>, headers: HeaderMap) -> Response {
    models::codex_catalog(&api, &headers)
}

async fn usage(State(api): State<ClientApi>, headers: HeaderMap) -> Response {
    match api.engine.pool_usage(extract::api_key(&headers).as_deref(), ProviderKind::Openai) {
        Ok(pool) => Json(usage_body(&pool, now())).into_response(),
        Err(error) => reply::error(&error),
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// The pool in the ChatGPT backend's usage shape (PROTOCOL §D.2).
pub fn usage_body(pool: &PoolUsage, now: i64) -> Value {
    let window = |name: &str| pool.windows.get(name).map_or(Value::Null, |w| window_json(w, now));
    json!({
        "plan_type": pool.plan_type.as_deref().unwrap_or("unknown"),
        "rate_limit": {
            "allowed": !pool.limit_reached,
            "limit_reached": pool.limit_reached,
            "primary_window": window("primary"),
            "secondary_window": window("secondary"),
        },
        "credits": null,
        "additional_rate_limits": [],
    })
}

fn window_json(window: &PoolWindow, now: i64) -> Value {
    json!({
        "used_percent": window.used_percent,
        "limit_window_seconds": window.window_seconds,
        "reset_after_seconds": window.reset_at.map(|at| (at - now).max(0)),
        "reset_at": window.reset_at,
    })
}
