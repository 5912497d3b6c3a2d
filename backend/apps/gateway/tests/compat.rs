//! The compatibility surface end to end (issue 20): Chat Completions over the engine, the
//! Codex ChatGPT-backend routes with the pooled usage, and the other client routes.

mod chat_completions;
mod codex_backend;
mod other_routes;

use serde_json::Value;

use crate::gateway::Gateway;

/// `POST /v1/chat/completions` with the gateway's key.
pub async fn chat(gateway: &Gateway, body: Value) -> reqwest::Response {
    gateway
        .client()
        .post(format!("{}/v1/chat/completions", gateway.url))
        .bearer_auth(&gateway.key)
        .json(&body)
        .send()
        .await
        .expect("sent")
}

/// The `data:` payloads of a Chat Completions stream (`[DONE]` as the string).
pub fn chunks(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter(|f| !f.trim().is_empty())
        .map(|f| {
            let data = f.strip_prefix("data: ").unwrap_or_else(|| panic!("not a data frame: {f:?}"));
            if data == "[DONE]" {
                Value::String(data.to_owned())
            } else {
                serde_json::from_str(data).expect("json chunk")
            }
        })
        .collect()
}

pub fn content(chunks: &[Value]) -> String {
    chunks.iter().filter_map(|c| c.pointer("/choices/0/delta/content").and_then(Value::as_str)).collect()
}
