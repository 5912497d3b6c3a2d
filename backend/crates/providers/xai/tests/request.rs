//! The request edits of PROTOCOL H.3.

use provider_xai::request::{ENCRYPTED_REASONING, prepare, session_uuid};
use serde_json::{Value, json};

fn edited(body: Value, model: &str) -> (Value, Option<String>) {
    let prepared = prepare(&serde_json::to_vec(&body).expect("json"), model, "key-1").expect("prepared");
    (serde_json::from_slice(&prepared.body).expect("json"), prepared.session)
}

#[test]
fn stream_store_include_model_and_dropped_fields() {
    let (body, session) = edited(
        json!({
            "model": "grok", "input": "hi", "stream": false, "include": ["file_search_call.results"],
            "service_tier": "priority", "previous_response_id": "resp_x", "safety_identifier": "u",
            "metadata": {"email": "a@b.io", "keep": "yes"}, "temperature": 0.2, "custom_field": 1
        }),
        "grok-4.5",
    );
    assert_eq!(body["model"], json!("grok-4.5"));
    assert_eq!(body["stream"], json!(true));
    assert_eq!(body["store"], json!(false));
    assert_eq!(body["include"], json!(["file_search_call.results", ENCRYPTED_REASONING]));
    for dropped in ["service_tier", "previous_response_id", "safety_identifier", "prompt_cache_key"] {
        assert!(body.get(dropped).is_none(), "{dropped} dropped: {body}");
    }
    assert_eq!(body["metadata"], json!({"keep": "yes"}), "identity keys leave metadata");
    assert_eq!(body["temperature"], json!(0.2));
    assert_eq!(body["custom_field"], json!(1), "unknown fields are kept");
    assert_eq!(session, None);
}

#[test]
fn an_explicit_store_is_kept_and_include_stays_single() {
    let (body, _) = edited(json!({"input": "hi", "store": true, "include": [ENCRYPTED_REASONING]}), "grok-4.5");
    assert_eq!(body["store"], json!(true));
    assert_eq!(body["include"], json!([ENCRYPTED_REASONING]));
}

#[test]
fn a_session_becomes_a_tenant_scoped_uuid() {
    let (body, session) = edited(json!({"input": "hi", "prompt_cache_key": "conv-7"}), "grok-4.5");
    let expected = session_uuid("key-1", "conv-7");
    assert_eq!(session.as_deref(), Some(expected.as_str()));
    assert_eq!(body["prompt_cache_key"], json!(expected));
    assert_ne!(session_uuid("key-2", "conv-7"), expected, "another key, another session");
    assert_eq!(expected.len(), 36);
}

#[test]
fn reasoning_response_format_tools_and_roles() {
    let (body, _) = edited(
        json!({
            "input": [{"type": "message", "role": "model", "phase": "x", "content": "earlier"}],
            "reasoning": {"effort": "xhigh", "summary": "auto"},
            "response_format": {"type": "json_schema", "json_schema": {"name": "n", "schema": {"type": "object"}}},
            "tools": [{"type": "function", "name": "f"}, {"type": "image_generation"}, {"type": "web_search_preview"}],
            "tool_choice": {"type": "image_generation"}
        }),
        "grok-4.5",
    );
    assert_eq!(body["reasoning"], json!({"effort": "high", "summary": "auto"}));
    assert_eq!(body["text"]["format"], json!({"type": "json_schema", "name": "n", "schema": {"type": "object"}}));
    assert!(body.get("response_format").is_none());
    let tools: Vec<&str> = body["tools"].as_array().expect("tools").iter().filter_map(|t| t["type"].as_str()).collect();
    assert_eq!(tools, ["function", "web_search"]);
    assert_eq!(body["tools"][0]["parameters"], json!({"type": "object", "properties": {}}));
    assert!(body.get("tool_choice").is_none(), "a choice of a dropped tool goes too");
    assert_eq!(body["input"][0]["role"], json!("assistant"));
    assert!(body["input"][0].get("phase").is_none());
    let (composer, _) = edited(json!({"input": "hi", "reasoning": {"effort": "low"}}), "grok-composer-2.5-fast");
    assert!(composer.get("reasoning").is_none(), "composer models take no reasoning fields");
}

#[test]
fn a_malformed_include_is_refused_with_its_field() {
    let error = prepare(br#"{"input":"hi","include":[1]}"#, "grok-4.5", "k").expect_err("refused");
    assert_eq!(error.field, "include");
    assert!(prepare(b"[]", "grok-4.5", "k").is_err());
}
