//! In-band compaction (PROTOCOL H.6): the call's body, and the three events the client gets
//! from the upstream's answer.

use std::sync::Arc;

use futures_util::StreamExt;
use gateway_core::domain::AccountId;
use gateway_core::provider::{FrameStream, StreamFailure, UpstreamEvent};
use gateway_protocol::SseFrame;
use provider_xai::inband::{SUMMARY_PROMPT, body, frames, summary_text};
use provider_xai::replay::{ReplayCache, ReplayKey};
use provider_xai::request::prepare;
use serde_json::{Value, json};

use crate::tools::provider_xai_test_ciphertext;

fn compaction_body(client: Value) -> Value {
    let prepared = prepare(&serde_json::to_vec(&client).expect("json"), "grok-4.5", "k").expect("prepared");
    assert!(prepared.compaction);
    serde_json::from_slice(&body(&prepared.body).expect("body")).expect("json")
}

#[test]
fn the_call_has_the_history_the_prompt_and_the_grok_build_tool_choice() {
    let history = json!([
        {"type": "message", "role": "user", "content": "build it"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "built"}]},
        {"type": "compaction_trigger"},
    ]);
    let sent = compaction_body(json!({"input": history, "prompt_cache_key": "conv-1", "store": true,
        "include": ["message.output_text.logprobs"], "tool_choice": "none",
        "tools": [{"type": "custom", "name": "apply_patch"}]}));
    assert_eq!(sent["store"], json!(false));
    assert_eq!(sent["include"], json!(["reasoning.encrypted_content"]));
    assert!(sent.get("prompt_cache_key").is_none(), "{sent}");
    assert_eq!(sent["tool_choice"], json!("auto"), "tools kept, choice auto");
    assert_eq!(sent["tools"][0]["type"], json!("function"), "tools rewritten as for any turn");
    let input = sent["input"].as_array().expect("input");
    assert_eq!(input.len(), 3, "history + prompt, no trigger: {input:?}");
    assert_eq!(input[2]["role"], json!("user"));
    let prompt = input[2]["content"][0]["text"].as_str().expect("prompt");
    assert_eq!(prompt, SUMMARY_PROMPT);
    assert!(prompt.contains("Do NOT call tools") && prompt.contains("<summary>") && prompt.contains("1. "));

    let bare = compaction_body(json!({"input": [{"type": "compaction_trigger"}], "tool_choice": "auto"}));
    assert!(bare.get("tool_choice").is_none() && bare.get("tools").is_none(), "no tools, no choice: {bare}");
}

fn upstream(events: Vec<Value>) -> FrameStream {
    let frames: Vec<Result<UpstreamEvent, StreamFailure>> = events
        .into_iter()
        .map(|event| {
            let kind = event["type"].as_str().expect("type").to_owned();
            Ok(UpstreamEvent::Frame(SseFrame::from_event(&kind, &serde_json::to_vec(&event).expect("json"))))
        })
        .collect();
    futures_util::stream::iter(frames).boxed()
}

fn answer(ciphertext: Option<&str>, terminal: &str) -> Vec<Value> {
    let reasoning = json!({"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": ciphertext});
    let message = json!({"id": "msg_1", "type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": "<summary>\n1. Goal: ship\n</summary>"}]});
    let usage = json!({"input_tokens": 900, "output_tokens": 40, "total_tokens": 940});
    vec![
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_9", "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.done", "sequence_number": 1, "output_index": 0, "item": reasoning}),
        json!({"type": "response.output_item.done", "sequence_number": 2, "output_index": 1, "item": message}),
        json!({"type": terminal, "sequence_number": 3,
            "response": {"id": "resp_9", "status": "completed", "output": [reasoning, message], "usage": usage}}),
    ]
}

async fn collect(stream: FrameStream) -> Vec<Result<Value, String>> {
    stream
        .map(|event| match event {
            Ok(UpstreamEvent::Frame(frame)) => Ok(serde_json::from_slice(&frame.data().expect("data")).expect("json")),
            Ok(_) => Err("quota".to_owned()),
            Err(failure) => Err(failure.message),
        })
        .collect()
        .await
}

fn key() -> ReplayKey {
    ReplayKey { model: "grok-4.5".into(), session: "s".into(), account: AccountId(7) }
}

#[tokio::test]
async fn the_client_gets_exactly_created_one_compaction_item_and_completed() {
    let cache = Arc::new(ReplayCache::default());
    let ciphertext = provider_xai_test_ciphertext();
    let earlier = json!({"type": "reasoning", "id": "rs_0", "encrypted_content": ciphertext});
    cache.remember(key(), &[earlier]);
    assert_eq!(cache.len(), 1);
    for terminal in ["response.completed", "response.incomplete"] {
        let out = collect(frames(upstream(answer(Some(&ciphertext), terminal)), Some((cache.clone(), key())))).await;
        let out: Vec<Value> = out.into_iter().map(|e| e.expect("frame")).collect();
        let names: Vec<&str> = out.iter().filter_map(|e| e["type"].as_str()).collect();
        assert_eq!(names, ["response.created", "response.output_item.done", "response.completed"], "{terminal}");
        for (index, event) in out.iter().enumerate() {
            assert_eq!(event["sequence_number"], json!(index));
        }
        let item = &out[1]["item"];
        assert!(item["id"].as_str().is_some_and(|id| id.starts_with("cmp_") && id.len() == 36), "{item}");
        assert_eq!(item["type"], json!("compaction"));
        assert_eq!(item["status"], json!("completed"));
        assert_eq!(item["encrypted_content"], json!(ciphertext));
        assert_eq!(item["summary"], json!([{"type": "summary_text", "text": "1. Goal: ship"}]));
        assert_eq!(out[0]["response"]["id"], json!("resp_9"));
        let completed = &out[2]["response"];
        assert_eq!(completed["status"], json!("completed"), "{terminal} with ciphertext is a success");
        assert_eq!(completed["usage"]["total_tokens"], json!(940), "usage copied");
        assert_eq!(completed["output"], json!([item]));
    }
    assert!(cache.is_empty(), "the session's replay entry is cleared");
}

#[tokio::test]
async fn an_answer_without_ciphertext_is_a_stream_failure_and_keeps_the_replay_entry() {
    let cache = Arc::new(ReplayCache::default());
    cache.remember(key(), &[json!({"type": "reasoning", "encrypted_content": provider_xai_test_ciphertext()})]);
    let out = collect(frames(upstream(answer(None, "response.completed")), Some((cache.clone(), key())))).await;
    assert_eq!(out.len(), 1);
    let message = out[0].clone().expect_err("failure");
    assert!(message.contains("encrypted_content"), "{message}");
    assert_eq!(cache.len(), 1);
}

#[tokio::test]
async fn an_upstream_failure_is_passed_on() {
    let events = vec![
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_9", "status": "in_progress"}}),
        json!({"type": "response.output_text.delta", "sequence_number": 1, "delta": "x"}),
        json!({"type": "response.failed", "sequence_number": 2,
            "response": {"id": "resp_9", "status": "failed", "error": {"code": "server_error", "message": "boom"}}}),
    ];
    let out: Vec<Value> =
        collect(frames(upstream(events), None)).await.into_iter().map(|e| e.expect("frame")).collect();
    let names: Vec<&str> = out.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(names, ["response.created", "response.failed"]);
    assert_eq!(out[1]["sequence_number"], json!(1));
}

#[test]
fn the_summary_is_the_block_else_the_whole_answer() {
    assert_eq!(summary_text("intro <summary>\n a \n</summary> tail"), "a");
    assert_eq!(summary_text("  no block  "), "no block");
}
