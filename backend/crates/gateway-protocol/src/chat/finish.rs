//! `finish_reason` and `usage` in Chat Completions terms, from a Responses terminal state.

use serde_json::{Value, json};

use crate::usage::Usage;

/// The `finish_reason` of a response that ended with `status` (`incomplete_details.reason`
/// `reason`), after a local stop match or not, with or without tool calls.
pub fn finish_reason(status: Option<&str>, reason: Option<&str>, stopped: bool, tool_calls: bool) -> &'static str {
    if stopped {
        return "stop";
    }
    match (status, reason) {
        (Some("incomplete"), Some("max_output_tokens" | "max_tokens")) => "length",
        (Some("incomplete"), Some("content_filter")) => "content_filter",
        _ if tool_calls => "tool_calls",
        _ => "stop",
    }
}

/// Responses usage in Chat Completions names.
pub fn chat_usage(usage: &Usage) -> Value {
    json!({
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total(),
        "prompt_tokens_details": {"cached_tokens": usage.cached_input_tokens()},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens()},
    })
}

/// `chatcmpl-…` from a Responses id (`resp_…`).
pub fn completion_id(response_id: Option<&str>) -> String {
    let id = response_id.unwrap_or_default();
    format!("chatcmpl-{}", id.strip_prefix("resp_").unwrap_or(id))
}
