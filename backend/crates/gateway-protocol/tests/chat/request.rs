//! One row per mapping of the request direction (the table in `src/chat/request.rs`).

use gateway_protocol::ErrorCode;
use gateway_protocol::chat::to_responses;
use serde_json::{Value, json};

fn convert(chat: Value) -> Value {
    let converted = to_responses(&serde_json::to_vec(&chat).expect("json")).expect("converts");
    serde_json::from_slice(&converted.body).expect("json out")
}

fn base(extra: Value) -> Value {
    let mut chat = json!({"model": "gpt-5.4", "messages": [{"role": "user", "content": "hi"}]});
    for (key, value) in extra.as_object().expect("object") {
        chat[key] = value.clone();
    }
    chat
}

/// (row, Chat Completions fields, the Responses field it maps to, the expected value).
fn rows() -> Vec<(&'static str, Value, &'static str, Value)> {
    let user_hi = json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]});
    vec![
        (
            "system message -> developer input message",
            json!({"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]}),
            "input",
            json!([{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "be brief"}]}, user_hi]),
        ),
        (
            "developer message with text parts -> developer input message",
            json!({"messages": [{"role": "developer", "content": [{"type": "text", "text": "rules"}]}]}),
            "input",
            json!([{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]}]),
        ),
        ("user string -> input_text", json!({}), "input", json!([user_hi])),
        (
            "user text + image_url parts -> input_text + input_image",
            json!({"messages": [{"role": "user", "content": [
                {"type": "text", "text": "what is it"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO", "detail": "low"}}]}]}),
            "input",
            json!([{"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "what is it"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBO", "detail": "low"}]}]),
        ),
        (
            "assistant content -> output_text message",
            json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}),
            "input",
            json!([user_hi, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]}]),
        ),
        (
            "assistant tool_calls -> one function_call each; tool result -> function_call_output",
            json!({"messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": "{\"x\":1}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "b", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "one"},
                {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "two"}]}]}),
            "input",
            json!([user_hi,
                {"type": "function_call", "call_id": "call_1", "name": "a", "arguments": "{\"x\":1}"},
                {"type": "function_call", "call_id": "call_2", "name": "b", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "one"},
                {"type": "function_call_output", "call_id": "call_2", "output": "two"}]),
        ),
        (
            "function tools -> flattened function tools",
            json!({"tools": [{"type": "function", "function": {"name": "get", "description": "d",
                "parameters": {"type": "object"}, "strict": true}}]}),
            "tools",
            json!([{"type": "function", "name": "get", "description": "d", "parameters": {"type": "object"}, "strict": true}]),
        ),
        ("tool_choice string -> the same", json!({"tool_choice": "required"}), "tool_choice", json!("required")),
        (
            "tool_choice named function -> flattened",
            json!({"tool_choice": {"type": "function", "function": {"name": "get"}}}),
            "tool_choice",
            json!({"type": "function", "name": "get"}),
        ),
        ("parallel_tool_calls -> the same", json!({"parallel_tool_calls": false}), "parallel_tool_calls", json!(false)),
        ("max_tokens -> max_output_tokens", json!({"max_tokens": 50}), "max_output_tokens", json!(50)),
        (
            "max_completion_tokens wins over max_tokens",
            json!({"max_tokens": 50, "max_completion_tokens": 70}),
            "max_output_tokens",
            json!(70),
        ),
        (
            "reasoning_effort -> reasoning.effort",
            json!({"reasoning_effort": "high"}),
            "reasoning",
            json!({"effort": "high"}),
        ),
        (
            "response_format json_schema -> text.format",
            json!({"response_format": {"type": "json_schema", "json_schema": {"name": "out", "schema": {"type": "object"}, "strict": true}}}),
            "text",
            json!({"format": {"type": "json_schema", "name": "out", "schema": {"type": "object"}, "strict": true}}),
        ),
        (
            "response_format json_object -> text.format",
            json!({"response_format": {"type": "json_object"}}),
            "text",
            json!({"format": {"type": "json_object"}}),
        ),
        (
            "service_tier priority -> service_tier",
            json!({"service_tier": "priority"}),
            "service_tier",
            json!("priority"),
        ),
        ("service_tier auto -> no tier", json!({"service_tier": "auto"}), "service_tier", Value::Null),
        ("temperature -> the same", json!({"temperature": 0.5}), "temperature", json!(0.5)),
        ("prompt_cache_key -> the same", json!({"prompt_cache_key": "k1"}), "prompt_cache_key", json!("k1")),
        ("stop -> not sent (local)", json!({"stop": ["END"]}), "stop", Value::Null),
        (
            "stream_options -> not sent (local)",
            json!({"stream": true, "stream_options": {"include_usage": true}}),
            "stream_options",
            Value::Null,
        ),
        (
            "seed and penalties -> dropped",
            json!({"seed": 1, "frequency_penalty": 1, "logit_bias": {}}),
            "seed",
            Value::Null,
        ),
        (
            "xAI search_parameters -> tolerated, dropped",
            json!({"search_parameters": {"mode": "auto"}}),
            "search_parameters",
            Value::Null,
        ),
        ("store -> always false", json!({"store": true}), "store", json!(false)),
        ("stream true -> stream true", json!({"stream": true}), "stream", json!(true)),
        ("stream absent -> stream false", json!({}), "stream", json!(false)),
    ]
}

#[test]
fn every_mapping_row_converts_as_the_table_says() {
    for (row, extra, field, expected) in rows() {
        let out = convert(base(extra));
        assert_eq!(out.get(field).cloned().unwrap_or(Value::Null), expected, "row: {row}");
        assert_eq!(out["model"], "gpt-5.4", "row: {row}");
    }
}

#[test]
fn local_parameters_are_kept_for_the_response_direction() {
    let chat = base(json!({"stream": true, "stream_options": {"include_usage": true}, "stop": "END"}));
    let converted = to_responses(&serde_json::to_vec(&chat).expect("json")).expect("converts");
    assert!(converted.stream && converted.include_usage);
    assert_eq!(converted.stop, vec!["END".to_owned()]);
    assert_eq!(converted.model, "gpt-5.4");
}

/// (row, body, the param the error names).
#[test]
fn bad_input_is_refused_naming_the_parameter() {
    let cases: Vec<(&str, Value, &str)> = vec![
        ("no model", json!({"messages": [{"role": "user", "content": "hi"}]}), "model"),
        ("no messages", json!({"model": "m"}), "messages"),
        ("empty messages", json!({"model": "m", "messages": []}), "messages"),
        ("unknown role", json!({"model": "m", "messages": [{"role": "wizard", "content": "x"}]}), "messages[0].role"),
        ("n = 2", base(json!({"n": 2})), "n"),
        ("five stops", base(json!({"stop": ["a", "b", "c", "d", "e"]})), "stop"),
        ("non-function tool", base(json!({"tools": [{"type": "retrieval"}]})), "tools[0]"),
        (
            "audio part",
            json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "input_audio"}]}]}),
            "messages[0].content",
        ),
        (
            "tool without id",
            json!({"model": "m", "messages": [{"role": "tool", "content": "x"}]}),
            "messages[0].tool_call_id",
        ),
        ("bad response_format", base(json!({"response_format": {"type": "yaml"}})), "response_format"),
        ("stream not a bool", base(json!({"stream": "yes"})), "stream"),
    ];
    for (row, body, param) in cases {
        let error = to_responses(&serde_json::to_vec(&body).expect("json")).expect_err(row);
        assert_eq!(error.code, ErrorCode::InvalidRequest, "row: {row}");
        assert_eq!(error.param.as_deref(), Some(param), "row: {row}");
        assert_eq!(error.status(), 400, "row: {row}");
    }
    assert_eq!(to_responses(b"{not json").expect_err("not json").code, ErrorCode::InvalidJson);
    assert_eq!(to_responses(b"[1]").expect_err("not an object").code, ErrorCode::InvalidJson);
}
