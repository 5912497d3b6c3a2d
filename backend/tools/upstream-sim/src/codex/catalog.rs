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

/// The base instructions of the two model families (what a real entry carries: the system
/// prompt Codex sends for that model, tens of lines).
const CODEX_INSTRUCTIONS: &str = include_str!("catalog/codex_instructions.md");
const GENERAL_INSTRUCTIONS: &str = include_str!("catalog/general_instructions.md");

/// One model of the simulated catalogue: the fields that differ between models.
struct Model {
    slug: &'static str,
    priority: i64,
    plans: &'static [&'static str],
    instructions: &'static str,
    apply_patch_tool_type: &'static str,
    efforts: &'static [&'static str],
    context_window: i64,
    truncation: (&'static str, i64),
}

const CODEX_EFFORTS: &[&str] = &["low", "medium", "high", "xhigh"];
const GENERAL_EFFORTS: &[&str] = &["minimal", "low", "medium", "high"];

const MODELS: &[Model] = &[
    Model {
        slug: "gpt-5.4",
        priority: 1,
        plans: PAID,
        instructions: GENERAL_INSTRUCTIONS,
        apply_patch_tool_type: "freeform",
        efforts: CODEX_EFFORTS,
        context_window: 272_000,
        truncation: ("tokens", 10_000),
    },
    Model {
        slug: "gpt-5.3-codex",
        priority: 2,
        plans: PAID,
        instructions: CODEX_INSTRUCTIONS,
        apply_patch_tool_type: "freeform",
        efforts: CODEX_EFFORTS,
        context_window: 272_000,
        truncation: ("tokens", 10_000),
    },
    Model {
        slug: "gpt-5.2-codex",
        priority: 3,
        plans: ALL,
        instructions: CODEX_INSTRUCTIONS,
        apply_patch_tool_type: "freeform",
        efforts: CODEX_EFFORTS,
        context_window: 272_000,
        truncation: ("tokens", 10_000),
    },
    Model {
        slug: "gpt-5.2",
        priority: 4,
        plans: PAID,
        instructions: GENERAL_INSTRUCTIONS,
        apply_patch_tool_type: "function",
        efforts: GENERAL_EFFORTS,
        context_window: 272_000,
        truncation: ("bytes", 10_000),
    },
    Model {
        slug: "gpt-5.1-codex-mini",
        priority: 5,
        plans: ALL,
        instructions: CODEX_INSTRUCTIONS,
        apply_patch_tool_type: "freeform",
        efforts: &["medium", "high"],
        context_window: 128_000,
        truncation: ("tokens", 10_000),
    },
    Model {
        slug: "gpt-5.4-pro",
        priority: 6,
        plans: &["pro"],
        instructions: GENERAL_INSTRUCTIONS,
        apply_patch_tool_type: "freeform",
        efforts: &["medium", "high", "xhigh"],
        context_window: 400_000,
        truncation: ("tokens", 10_000),
    },
];

/// Whether `plan` may use `model`.
pub fn available(model: &str, plan: &str) -> bool {
    MODELS.iter().any(|m| m.slug == model && m.plans.contains(&plan))
}

/// The ModelInfo objects `plan` may use.
pub fn models_for(plan: &str) -> Vec<Value> {
    MODELS.iter().filter(|m| m.plans.contains(&plan)).map(model_info).collect()
}

fn effort_description(effort: &str) -> &'static str {
    match effort {
        "minimal" => "Fastest responses with little reasoning",
        "low" => "Fast responses with lighter reasoning",
        "medium" => "Balances speed and reasoning depth",
        "high" => "Greater reasoning depth for complex problems",
        _ => "Extra high reasoning depth",
    }
}

fn model_info(model: &Model) -> Value {
    let levels: Vec<Value> =
        model.efforts.iter().map(|e| json!({"effort": e, "description": effort_description(e)})).collect();
    json!({
        "slug": model.slug,
        "display_name": model.slug,
        "description": format!("{} (simulated)", model.slug),
        "default_reasoning_level": "medium",
        "supported_reasoning_levels": levels,
        "shell_type": "shell_command",
        "visibility": "list",
        "supported_in_api": true,
        "priority": model.priority,
        "availability_nux": null,
        "upgrade": null,
        "base_instructions": model.instructions,
        "supports_reasoning_summaries": true,
        "default_reasoning_summary": "auto",
        "support_verbosity": true,
        "default_verbosity": "low",
        "apply_patch_tool_type": model.apply_patch_tool_type,
        "truncation_policy": {"mode": model.truncation.0, "limit": model.truncation.1},
        "supports_parallel_tool_calls": true,
        "supports_image_detail_original": true,
        "context_window": model.context_window,
        "auto_compact_token_limit": model.context_window * 9 / 10,
        "effective_context_window_percent": 95,
        "experimental_supported_tools": [],
        "input_modalities": ["text", "image"],
        "prefer_websockets": false,
        "supports_search_tool": false,
        "minimal_client_version": "0.1.0",
        "available_in_plans": model.plans,
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
