//! The non-stream direction: a Responses response object becomes a `chat.completion`.

use serde_json::{Value, json};

use super::finish::{chat_usage, completion_id, finish_reason};
use super::stop::StopFilter;
use crate::usage::Usage;

/// The `chat.completion` for `response`; `model` is what the client asked for (used when the
/// response names none), `stops` the local stop sequences, `created` the fallback time.
pub fn completion_from_response(response: &Value, model: &str, stops: &[String], created: i64) -> Value {
    let output = response.get("output").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut text = String::new();
    let mut refusal = String::new();
    let mut reasoning = String::new();
    let mut tool_calls = Vec::new();
    for item in output {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => collect_message(item, &mut text, &mut refusal),
            Some("reasoning") => collect_reasoning(item, &mut reasoning),
            Some("function_call") => tool_calls.push(json!({
                "id": item.get("call_id").cloned().unwrap_or(Value::Null),
                "type": "function",
                "function": {
                    "name": item.get("name").cloned().unwrap_or(Value::Null),
                    "arguments": item.get("arguments").and_then(Value::as_str).unwrap_or("{}"),
                },
            })),
            _ => {}
        }
    }
    let (text, stopped) = StopFilter::apply(stops, &text);
    let status = response.get("status").and_then(Value::as_str);
    let reason = response.get("incomplete_details").and_then(|d| d.get("reason")).and_then(Value::as_str);
    let finish = finish_reason(status, reason, stopped, !tool_calls.is_empty());
    let mut message = json!({
        "role": "assistant",
        "content": if text.is_empty() && !tool_calls.is_empty() { Value::Null } else { Value::String(text) },
        "refusal": if refusal.is_empty() { Value::Null } else { Value::String(refusal) },
    });
    if !tool_calls.is_empty() {
        message["tool_calls"] = Value::Array(tool_calls);
    }
    if !reasoning.is_empty() {
        message["reasoning_content"] = Value::String(reasoning);
    }
    let usage = response.get("usage").and_then(|u| serde_json::from_value::<Usage>(u.clone()).ok()).unwrap_or_default();
    let mut completion = json!({
        "id": completion_id(response.get("id").and_then(Value::as_str)),
        "object": "chat.completion",
        "created": response.get("created_at").and_then(Value::as_i64).unwrap_or(created),
        "model": response.get("model").and_then(Value::as_str).unwrap_or(model),
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
        "usage": chat_usage(&usage),
    });
    if let Some(tier) = response.get("service_tier").filter(|t| t.is_string()) {
        completion["service_tier"] = tier.clone();
    }
    completion
}

fn collect_message(item: &Value, text: &mut String, refusal: &mut String) {
    for part in item.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
        match part.get("type").and_then(Value::as_str) {
            Some("output_text") => text.push_str(part.get("text").and_then(Value::as_str).unwrap_or_default()),
            Some("refusal") => refusal.push_str(part.get("refusal").and_then(Value::as_str).unwrap_or_default()),
            _ => {}
        }
    }
}

fn collect_reasoning(item: &Value, reasoning: &mut String) {
    for key in ["summary", "content"] {
        for part in item.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
            reasoning.push_str(part.get("text").and_then(Value::as_str).unwrap_or_default());
        }
    }
}
