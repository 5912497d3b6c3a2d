//! The Codex catalog shape (`{"models":[ModelInfo…]}`, PROTOCOL §D.1) that Codex reads from
//! `GET /models?client_version=`. A model an upstream catalog describes is served with the
//! upstream's own entry, byte for byte (its base instructions, tool types, reasoning levels,
//! context window: what makes Codex send what it sends to the backend). A model the gateway
//! knows only by id (an alias, the fallback catalog, another provider) gets a neutral entry:
//! what Codex requires of a ModelInfo, with defaults that keep the client's own base
//! instructions and tool choices.

use serde_json::{Value, json};

/// One model of a served catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogItem<'a> {
    /// The upstream's entry: one JSON object (checked when it was kept), served as sent.
    Upstream { json: &'a str, priority: Option<i64> },
    /// A model known by id only: the neutral [`entry`].
    Neutral(&'a str),
}

/// The catalog body as JSON text, in the order given. Upstream entries keep their own
/// priorities; neutral entries are numbered after the largest of them (from 1 when there is
/// none), in the order given.
pub fn catalog_body<'a>(items: impl IntoIterator<Item = CatalogItem<'a>>) -> String {
    let items: Vec<CatalogItem<'a>> = items.into_iter().collect();
    let mut next = items
        .iter()
        .filter_map(|item| match item {
            CatalogItem::Upstream { priority, .. } => *priority,
            CatalogItem::Neutral(_) => None,
        })
        .max()
        .unwrap_or(0);
    let mut body = String::from("{\"models\":[");
    for (at, item) in items.iter().enumerate() {
        if at > 0 {
            body.push(',');
        }
        match item {
            CatalogItem::Upstream { json, .. } => body.push_str(json),
            CatalogItem::Neutral(slug) => {
                next += 1;
                body.push_str(&entry(slug, next).to_string());
            }
        }
    }
    body.push_str("]}");
    body
}

/// The neutral ModelInfo of `slug`.
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
