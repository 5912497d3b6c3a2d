//! Zed edit predictions (`src/zed.rs`).

use gateway_protocol::zed::{completion, split_fim, to_responses};
use serde_json::{Value, json};

const PROMPT: &str = "<|fim_prefix|>let a = <|fim_suffix|>;<|fim_middle|>";

fn request(extra: Value) -> gateway_protocol::zed::EditPrediction {
    let mut body = json!({"model": "gpt-5.4", "prompt": PROMPT, "max_tokens": 8});
    for (key, value) in extra.as_object().expect("object") {
        body[key] = value.clone();
    }
    to_responses(&serde_json::to_vec(&body).expect("json")).expect("valid")
}

fn answer(text: &str, status: &str, reason: Option<&str>) -> Value {
    json!({"id": "resp_1", "status": status, "incomplete_details": reason.map(|r| json!({"reason": r})),
        "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}],
        "usage": {"input_tokens": 3, "output_tokens": 2}})
}

#[test]
fn the_fim_prompt_splits_into_prefix_and_suffix_only_when_ordered_and_single() {
    assert_eq!(split_fim(PROMPT), Some(("let a = ", ";")));
    assert_eq!(split_fim("<|fim_suffix|>x<|fim_prefix|>y<|fim_middle|>"), None);
    assert_eq!(split_fim("<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>tail"), None);
    assert_eq!(split_fim("<|fim_prefix|>x<|fim_prefix|><|fim_suffix|>y<|fim_middle|>"), None);
}

#[test]
fn the_responses_request_is_tool_free_low_effort_with_separate_texts_and_no_sampling() {
    let converted = request(json!({"temperature": 0.2, "stop": ["\n"]}));
    let body: Value = serde_json::from_slice(&converted.body).expect("json");
    assert_eq!(
        body["input"][1]["content"],
        json!([{"type": "input_text", "text": "let a = "}, {"type": "input_text", "text": ";"}])
    );
    assert_eq!(body["reasoning"], json!({"effort": "low"}));
    for absent in ["tools", "temperature", "max_tokens", "max_output_tokens", "stop"] {
        assert!(body.get(absent).is_none(), "{absent} sent upstream");
    }
    assert_eq!(converted.stop, vec!["\n".to_owned()]);
}

#[test]
fn the_budget_counts_code_points_and_maps_finish_reasons() {
    let converted = request(json!({"max_tokens": 3}));
    let out = completion(&answer("ä😀ßmore", "completed", None), &converted, 0).expect("completion");
    assert_eq!(out["choices"][0]["text"], "ä😀ß");
    assert_eq!(out["choices"][0]["finish_reason"], "length");
    assert_eq!(out["object"], "text_completion");
    assert_eq!(out["id"], "cmpl-1");
    let converted = request(json!({}));
    let rows = [
        (answer("ok", "completed", None), "stop"),
        (answer("ok", "incomplete", Some("max_output_tokens")), "length"),
        (answer("ok", "incomplete", Some("content_filter")), "content_filter"),
    ];
    for (response, expected) in rows {
        assert_eq!(completion(&response, &converted, 0).expect("completion")["choices"][0]["finish_reason"], expected);
    }
}

#[test]
fn tool_output_is_refused() {
    let response = json!({"status": "completed", "output": [{"type": "function_call", "name": "x"}]});
    assert!(completion(&response, &request(json!({})), 0).is_err());
}
