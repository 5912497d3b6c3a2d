//! The compaction body (PROTOCOL H.6, decision 0269): what [CLI] removes, the trigger item, the
//! model mapping, portable reasoning.

use provider_xai::compact::body;
use serde_json::{Value, json};

fn edited(client: Value) -> Value {
    serde_json::from_slice(&body(client.to_string().as_bytes(), "grok-4.5").expect("body")).expect("json")
}

#[test]
fn the_body_is_unary_without_tools_sampling_or_the_trigger() {
    let sent = edited(json!({
        "model": "grok", "stream": true, "store": true, "include": ["reasoning.encrypted_content"],
        "tools": [{"type": "function", "name": "f"}], "tool_choice": "auto", "temperature": 0.2, "top_p": 0.9,
        "max_output_tokens": 10, "stop": ["x"], "previous_response_id": "resp_1", "prompt_cache_key": "s",
        "instructions": "keep me", "metadata": {"email": "a@b.io", "topic": "t"},
        "input": [
            {"type": "message", "role": "user", "content": "q"},
            {"type": "reasoning", "id": "rs_1", "summary": [], "status": "completed", "encrypted_content": "gAAAAAB"},
            {"type": "compaction_trigger"},
        ],
    }));
    assert_eq!(
        sent,
        json!({"model": "grok-4.5", "instructions": "keep me", "metadata": {"topic": "t"}, "input": [
            {"type": "message", "role": "user", "content": "q"},
            {"type": "message", "role": "developer", "content": [{"type": "input_text",
                "text": "A reasoning item (rs_1) of an earlier turn was omitted: it cannot be replayed to this model."}]},
        ]})
    );
}

#[test]
fn a_text_input_becomes_one_user_message_and_no_input_is_refused() {
    let sent = edited(json!({"model": "grok", "input": "long history"}));
    assert_eq!(sent["input"], json!([{"type": "message", "role": "user", "content": "long history"}]));
    let refused = body(br#"{"model": "grok"}"#, "grok-4.5").expect_err("no input");
    assert_eq!(refused.field, "input");
}
