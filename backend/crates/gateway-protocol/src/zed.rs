//! Zed edit predictions over Responses (`POST /v1/zed/edit-predictions`, the rules of seed
//! `000_…`): a Qwen fill-in-the-middle prompt becomes a tool-free Responses request with the
//! prefix and the suffix as separate input texts; the aggregated answer becomes one
//! text-completion object. Stops and the output budget (`max_tokens`, counted in Unicode code
//! points) are applied locally after the whole upstream answer was read; no sampling or token
//! field goes upstream.

use serde_json::{Map, Value, json};

use crate::chat::StopFilter;
use crate::chat::finish::completion_id;
use crate::error::{ApiError, ErrorCode};
use crate::usage::Usage;

pub const FIM_PREFIX: &str = "<|fim_prefix|>";
pub const FIM_SUFFIX: &str = "<|fim_suffix|>";
pub const FIM_MIDDLE: &str = "<|fim_middle|>";
/// The largest `max_tokens` accepted.
pub const MAX_TOKENS: u64 = 4096;

/// What the model is told (the prefix and suffix follow as their own input texts).
const TASK: &str = "You complete code. The first text is the code before the cursor, the second the code \
after it. Answer with exactly the text to insert at the cursor, nothing else.";

/// A converted edit-prediction request.
#[derive(Debug, Clone)]
pub struct EditPrediction {
    /// The Responses body to run.
    pub body: Vec<u8>,
    pub model: String,
    /// The output budget in code points.
    pub max_chars: usize,
    pub stop: Vec<String>,
}

fn invalid(message: impl Into<String>, param: &str) -> ApiError {
    ApiError::new(ErrorCode::InvalidRequest, message).with_param(param)
}

/// A model id the gateway accepts: 1–128 of `[A-Za-z0-9._:/-]`.
fn safe_model(model: &str) -> bool {
    !model.is_empty()
        && model.len() <= 128
        && model.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'/' | b'-'))
}

/// Splits a Qwen FIM prompt into (prefix, suffix): exactly one of each marker, in order.
pub fn split_fim(prompt: &str) -> Option<(&str, &str)> {
    let count = |marker: &str| prompt.matches(marker).count();
    if count(FIM_PREFIX) != 1 || count(FIM_SUFFIX) != 1 || count(FIM_MIDDLE) != 1 {
        return None;
    }
    let rest = prompt.trim_start().strip_prefix(FIM_PREFIX)?;
    let (prefix, rest) = rest.split_once(FIM_SUFFIX)?;
    let (suffix, after) = rest.split_once(FIM_MIDDLE)?;
    after.trim().is_empty().then_some((prefix, suffix))
}

/// Converts an edit-prediction body.
pub fn to_responses(body: &[u8]) -> Result<EditPrediction, ApiError> {
    let request: Map<String, Value> = match serde_json::from_slice(body) {
        Ok(Value::Object(request)) => request,
        _ => return Err(ApiError::new(ErrorCode::InvalidJson, "The request body must be a JSON object.")),
    };
    let model = match request.get("model").and_then(Value::as_str) {
        Some(model) if safe_model(model) => model.to_owned(),
        _ => return Err(invalid("'model' must be a model id of letters, digits and . _ : / -.", "model")),
    };
    let max_tokens = request.get("max_tokens").and_then(Value::as_u64).filter(|n| (1..=MAX_TOKENS).contains(n));
    let Some(max_tokens) = max_tokens else {
        return Err(invalid(format!("'max_tokens' must be an integer from 1 to {MAX_TOKENS}."), "max_tokens"));
    };
    let prompt = request.get("prompt").and_then(Value::as_str).unwrap_or_default();
    let Some((prefix, suffix)) = split_fim(prompt) else {
        return Err(invalid(
            "'prompt' must hold exactly one <|fim_prefix|>…<|fim_suffix|>…<|fim_middle|> sequence, in that order.",
            "prompt",
        ));
    };
    let stop = match request.get("stop") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(stop)) => vec![stop.clone()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        Some(_) => return Err(invalid("'stop' must be a string or an array of strings.", "stop")),
    };
    let text = |text: &str| json!({"type": "input_text", "text": text});
    let out = json!({
        "model": model,
        "input": [
            {"type": "message", "role": "developer", "content": [text(TASK)]},
            {"type": "message", "role": "user", "content": [text(prefix), text(suffix)]},
        ],
        "reasoning": {"effort": "low"},
        "stream": false,
        "store": false,
    });
    let body = serde_json::to_vec(&out).unwrap_or_default();
    Ok(EditPrediction { body, model, max_chars: max_tokens as usize, stop })
}

/// The text-completion object for the aggregated `response`, or the error when the answer is
/// not a plain text completion (tool output, failed).
pub fn completion(response: &Value, request: &EditPrediction, created: i64) -> Result<Value, ApiError> {
    let output = response.get("output").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut text = String::new();
    for item in output {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in item.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
                    text.push_str(part.get("text").and_then(Value::as_str).unwrap_or_default());
                }
            }
            Some("reasoning") => {}
            _ => return Err(ApiError::new(ErrorCode::UpstreamError, "The upstream answered with tool output.")),
        }
    }
    let status = response.get("status").and_then(Value::as_str);
    let reason = response.get("incomplete_details").and_then(|d| d.get("reason")).and_then(Value::as_str);
    let (mut text, stopped) = StopFilter::apply(&request.stop, &text);
    let truncated = text.chars().count() > request.max_chars;
    if truncated {
        text = text.chars().take(request.max_chars).collect();
    }
    let finish = match (status, reason) {
        _ if stopped => "stop",
        (Some("incomplete"), Some("content_filter")) => "content_filter",
        (Some("incomplete"), _) => "length",
        _ if truncated => "length",
        _ => "stop",
    };
    let usage = response.get("usage").and_then(|u| serde_json::from_value::<Usage>(u.clone()).ok()).unwrap_or_default();
    Ok(json!({
        "id": completion_id(response.get("id").and_then(Value::as_str)).replacen("chatcmpl-", "cmpl-", 1),
        "object": "text_completion",
        "created": response.get("created_at").and_then(Value::as_i64).unwrap_or(created),
        "model": response.get("model").and_then(Value::as_str).unwrap_or(&request.model),
        "choices": [{"text": text, "index": 0, "logprobs": null, "finish_reason": finish}],
        "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens, "total_tokens": usage.total()},
    }))
}
