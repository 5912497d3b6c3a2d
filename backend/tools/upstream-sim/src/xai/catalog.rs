//! `GET {xai}/v1/models` and `GET {xai}/v1/billing?format=credits` (PROTOCOL H.8, H.12 item 3).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;
use http::StatusCode;
use serde_json::{Value, json};

use crate::ids::rfc3339;
use crate::request::json_response_with;
use crate::state::SimState;
use crate::xai::{answer_headers, authorize, gate};

/// `(id, context window, max completion tokens, reasoning efforts)`.
const MODELS: &[(&str, u64, u64, &[&str])] = &[
    ("grok-4.5", 2_000_000, 128_000, &["low", "medium", "high"]),
    ("grok-build-0.1", 256_000, 64_000, &[]),
    ("grok-4.20-0309-reasoning", 2_000_000, 64_000, &[]),
    ("grok-code-fast-1", 256_000, 32_000, &[]),
];

/// Whether the simulated xAI catalogue has `model`.
pub fn known(model: &str) -> bool {
    MODELS.iter().any(|(id, ..)| *id == model)
}

fn model_entry(id: &str, context: u64, max_completion: u64, efforts: &[&str]) -> Value {
    json!({
        "id": id,
        "object": "model",
        "created": 1_767_225_600,
        "owned_by": "xai",
        "name": id,
        "description": format!("{id} (upstream-sim)"),
        "contextWindow": context,
        "maxCompletionTokens": max_completion,
        "apiBackend": "responses",
        "supportedInApi": true,
        "supportsReasoningEffort": !efforts.is_empty(),
        "reasoningEfforts": efforts,
        "streamToolCalls": true,
        "hidden": false,
    })
}

pub async fn models(State(state): State<Arc<SimState>>, request: Request) -> Response {
    state.record("GET", &crate::request::original_uri(&request), request.headers(), b"", None);
    let headers = request.headers();
    if let Err(response) = gate(&state, headers) {
        return response;
    }
    if let Err(response) = authorize(&state, headers) {
        return response;
    }
    let data: Vec<Value> = MODELS.iter().map(|(id, c, m, e)| model_entry(id, *c, *m, e)).collect();
    json_response_with(StatusCode::OK, &json!({"object": "list", "data": data}), answer_headers(headers))
}

pub async fn billing(State(state): State<Arc<SimState>>, request: Request) -> Response {
    state.record("GET", &crate::request::original_uri(&request), request.headers(), b"", None);
    let headers = request.headers();
    if let Err(response) = gate(&state, headers) {
        return response;
    }
    let account = match authorize(&state, headers) {
        Ok(account) => account,
        Err(response) => return response,
    };
    let used_percent = account.primary.used_percent.clamp(0.0, 100.0);
    let limit_cents: u64 = 30_000;
    let used_cents = (limit_cents as f64 * used_percent / 100.0).round() as u64;
    let period_start = account.primary.reset_at.saturating_sub(account.primary.window_minutes * 60);
    let body = json!({
        "config": {
            "creditUsagePercent": used_percent,
            "monthlyLimit": {"val": limit_cents},
            "used": {"val": used_cents},
            "onDemandCap": {"val": 0},
            "onDemandUsed": {"val": 0},
            "prepaidBalance": {"val": 0},
            "currentPeriod": {
                "type": "USAGE_PERIOD_TYPE_MONTHLY",
                "start": rfc3339(period_start),
                "end": rfc3339(account.primary.reset_at),
            },
            "history": [],
        },
        "onDemandEnabled": false,
        "subscriptionTier": account.plan,
    });
    json_response_with(StatusCode::OK, &body, answer_headers(headers))
}
