//! `GET {base}/codex/models?client_version=`: the model catalogue (PROTOCOL D.1), filtered by
//! the account's plan, with an `ETag` and `304 Not Modified` on `If-None-Match`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use http::{StatusCode, header};
use serde_json::{Value, json};

use crate::codex::{answer_headers, authorize};
use crate::request::{Received, json_response_with, set_header};
use crate::state::SimState;

const PAID: &[&str] = &["plus", "pro", "team", "business", "enterprise", "edu"];
const ALL: &[&str] = &["free", "go", "plus", "pro", "team", "business", "enterprise", "edu"];

/// `(slug, display name, priority, plans)` of the simulated catalogue.
const MODELS: &[(&str, &str, i64, &[&str])] = &[
    ("gpt-5.4", "gpt-5.4", 1, PAID),
    ("gpt-5.3-codex", "gpt-5.3-codex", 2, PAID),
    ("gpt-5.2-codex", "gpt-5.2-codex", 3, ALL),
    ("gpt-5.2", "gpt-5.2", 4, PAID),
    ("gpt-5.1-codex-mini", "gpt-5.1-codex-mini", 5, ALL),
    ("gpt-5.4-pro", "gpt-5.4-pro", 6, &["pro"]),
];

/// Whether `plan` may use `model`.
pub fn available(model: &str, plan: &str) -> bool {
    MODELS.iter().any(|(slug, _, _, plans)| *slug == model && plans.contains(&plan))
}

/// The ModelInfo objects `plan` may use.
pub fn models_for(plan: &str) -> Vec<Value> {
    MODELS
        .iter()
        .filter(|(_, _, _, plans)| plans.contains(&plan))
        .map(|(slug, display, priority, plans)| model_info(slug, display, *priority, plans))
        .collect()
}

fn model_info(slug: &str, display: &str, priority: i64, plans: &[&str]) -> Value {
    let level = |effort: &str, description: &str| json!({"effort": effort, "description": description});
    json!({
        "slug": slug,
        "display_name": display,
        "description": format!("{display} (simulated)"),
        "default_reasoning_level": "medium",
        "supported_reasoning_levels": [
            level("low", "Fast responses with lighter reasoning"),
            level("medium", "Balances speed and reasoning depth"),
            level("high", "Greater reasoning depth for complex problems"),
            level("xhigh", "Extra high reasoning depth"),
        ],
        "shell_type": "shell_command",
        "visibility": "list",
        "supported_in_api": true,
        "priority": priority,
        "availability_nux": null,
        "upgrade": null,
        "base_instructions": "You are Codex, a coding agent (upstream-sim catalogue).",
        "supports_reasoning_summaries": true,
        "default_reasoning_summary": "auto",
        "support_verbosity": true,
        "default_verbosity": "low",
        "apply_patch_tool_type": "freeform",
        "truncation_policy": {"mode": "tokens", "limit": 10000},
        "supports_parallel_tool_calls": true,
        "supports_image_detail_original": true,
        "context_window": 272000,
        "effective_context_window_percent": 95,
        "experimental_supported_tools": [],
        "input_modalities": ["text", "image"],
        "prefer_websockets": false,
        "supports_search_tool": false,
        "minimal_client_version": "0.1.0",
        "available_in_plans": plans,
    })
}

pub async fn models(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    let authorized = authorize(&state, &received.headers);
    let account_id = authorized.as_ref().ok().map(|a| a.id.clone());
    state.record("GET", &received.uri, &received.headers, &received.body, account_id);
    let account = match authorized {
        Ok(account) => account,
        Err((_, response)) => return response,
    };
    let etag = state.settings().models_etag;
    let mut headers = answer_headers(&state, Some(&account), &received.headers);
    set_header(&mut headers, "etag", &etag);
    let matches = received
        .header(header::IF_NONE_MATCH.as_str())
        .is_some_and(|value| value.split(',').any(|tag| tag.trim() == etag || tag.trim() == "*"));
    if matches {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    json_response_with(StatusCode::OK, &json!({"models": models_for(&account.plan)}), headers)
}
