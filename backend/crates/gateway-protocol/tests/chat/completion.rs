//! The response direction, non-stream: one row per usage and `finish_reason` mapping.

use gateway_protocol::chat::completion_from_response;
use serde_json::{Value, json};

fn message(text: &str) -> Value {
    json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
}

fn response(status: &str, output: Value, extra: Value) -> Value {
    let mut response = json!({"id": "resp_abc", "object": "response", "created_at": 1_700_000_123, "model": "gpt-5.4",
        "status": status, "output": output,
        "usage": {"input_tokens": 11, "input_tokens_details": {"cached_tokens": 3}, "output_tokens": 7,
            "output_tokens_details": {"reasoning_tokens": 2}, "total_tokens": 18}});
    for (key, value) in extra.as_object().expect("object") {
        response[key] = value.clone();
    }
    response
}

#[test]
fn usage_maps_field_by_field() {
    let completion = completion_from_response(&response("completed", json!([message("hi")]), json!({})), "m", &[], 0);
    let usage = &completion["usage"];
    for (row, chat_field, expected) in [
        ("input_tokens -> prompt_tokens", "/prompt_tokens", 11),
        ("cached_tokens -> prompt_tokens_details.cached_tokens", "/prompt_tokens_details/cached_tokens", 3),
        ("output_tokens -> completion_tokens", "/completion_tokens", 7),
        (
            "reasoning_tokens -> completion_tokens_details.reasoning_tokens",
            "/completion_tokens_details/reasoning_tokens",
            2,
        ),
        ("total_tokens -> total_tokens", "/total_tokens", 18),
    ] {
        assert_eq!(usage.pointer(chat_field), Some(&json!(expected)), "row: {row}");
    }
}

#[test]
fn finish_reason_maps_row_by_row() {
    let call = json!({"type": "function_call", "call_id": "call_9", "name": "get", "arguments": "{\"a\":1}"});
    let rows: Vec<(&str, Value, Vec<String>, &str)> = vec![
        (
            "completed without tool calls -> stop",
            response("completed", json!([message("hi")]), json!({})),
            vec![],
            "stop",
        ),
        (
            "completed with a function_call -> tool_calls",
            response("completed", json!([call]), json!({})),
            vec![],
            "tool_calls",
        ),
        (
            "incomplete(max_output_tokens) -> length",
            response(
                "incomplete",
                json!([message("h")]),
                json!({"incomplete_details": {"reason": "max_output_tokens"}}),
            ),
            vec![],
            "length",
        ),
        (
            "incomplete(content_filter) -> content_filter",
            response("incomplete", json!([message("h")]), json!({"incomplete_details": {"reason": "content_filter"}})),
            vec![],
            "content_filter",
        ),
        (
            "a local stop match -> stop",
            response("completed", json!([message("a END b")]), json!({})),
            vec!["END".into()],
            "stop",
        ),
    ];
    for (row, response, stops, expected) in rows {
        let completion = completion_from_response(&response, "m", &stops, 0);
        assert_eq!(completion["choices"][0]["finish_reason"], expected, "row: {row}");
    }
}

#[test]
fn the_completion_object_carries_text_tool_calls_and_ids() {
    let call = json!({"type": "function_call", "call_id": "call_9", "name": "get", "arguments": "{\"a\":1}"});
    let out = completion_from_response(
        &response(
            "completed",
            json!([message("Hel"), message("lo END rest"), call]),
            json!({"service_tier": "priority"}),
        ),
        "asked",
        &["END".to_owned()],
        5,
    );
    assert_eq!(out["object"], "chat.completion");
    assert_eq!(out["id"], "chatcmpl-abc");
    assert_eq!(out["created"], 1_700_000_123);
    assert_eq!(out["model"], "gpt-5.4");
    assert_eq!(out["service_tier"], "priority");
    let message = &out["choices"][0]["message"];
    assert_eq!(message["role"], "assistant");
    assert_eq!(message["content"], "Hello ");
    assert_eq!(
        message["tool_calls"],
        json!([{"id": "call_9", "type": "function", "function": {"name": "get", "arguments": "{\"a\":1}"}}])
    );
}

#[test]
fn tool_calls_alone_leave_content_null_and_a_bare_response_uses_the_asked_model() {
    let call = json!({"type": "function_call", "call_id": "c", "name": "n", "arguments": "{}"});
    let out = completion_from_response(&json!({"status": "completed", "output": [call]}), "asked", &[], 42);
    assert_eq!(out["model"], "asked");
    assert_eq!(out["created"], 42);
    assert_eq!(out["choices"][0]["message"]["content"], Value::Null);
    assert_eq!(out["usage"]["total_tokens"], 0);
}
