//! The Codex catalog shape (`{"models":[ModelInfo…]}`, PROTOCOL §D.1) that Codex reads from
//! `GET /models?client_version=`. The gateway knows model ids (the union of its accounts'
//! catalogs); each entry states what Codex requires of a ModelInfo with neutral defaults, so
//! the client keeps its own base instructions and tool choices.

use serde_json::{Value, json};

/// The catalog for `ids`, in the order given (their position is the priority).
pub fn catalog<'a>(ids: impl IntoIterator<Item = &'a str>) -> Value {
    let models: Vec<Value> = ids.into_iter().enumerate().map(|(at, id)| entry(id, at as i64 + 1)).collect();
    json!({ "models": models })
}

/// One ModelInfo.
pub fn entry(slug: &str, priority: i64) -> Value {
    let level = |effort: &str, description: &str| json!({"effort": effort, "description": description});
    json!({
        "slug": slug,
        "display_name": slug,
        "description": format!("{slug} through Switchboard"),
        "default_reasoning_level": "medium",
        "supported_reasoning_levels": [
            level("low", "Fast responses with lighter reasoning"),
            level("medium", "Balances speed and reasoning depth"),
            level("high", "Greater reasoning depth for complex problems"),
        ],
        "shell_type": "shell_command",
        "visibility": "list",
        "supported_in_api": true,
        "priority": priority,
        "availability_nux": null,
        "upgrade": null,
        "base_instructions": "",
        "supports_reasoning_summaries": true,
        "default_reasoning_summary": "auto",
        "support_verbosity": true,
        "default_verbosity": "low",
        "truncation_policy": {"mode": "tokens", "limit": 10000},
        "supports_parallel_tool_calls": true,
        "context_window": 272000,
        "effective_context_window_percent": 95,
        "experimental_supported_tools": [],
        "input_modalities": ["text", "image"],
        "prefer_websockets": false,
    })
}
