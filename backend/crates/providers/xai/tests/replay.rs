//! The reasoning replay cache (PROTOCOL H.7, decision 0266): what a completed turn leaves, where
//! it goes into the next turn, when nothing is inserted, and its bounds (tokio paused time).

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use gateway_core::domain::AccountId;
use gateway_protocol::SseFrame;
use provider_xai::replay::{Recorder, ReplayCache, ReplayKey, ReplayLimits};
use serde_json::{Value, json};

fn ciphertext(seed: u64) -> String {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ seed;
    let bytes: Vec<u8> = (0..96)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    STANDARD_NO_PAD.encode(bytes)
}

fn key(account: i64) -> ReplayKey {
    ReplayKey { model: "grok-4.5".to_owned(), session: "sess-1".to_owned(), account: AccountId(account) }
}

fn reasoning(id: &str, cipher: &str) -> Value {
    json!({"type": "reasoning", "id": id, "status": "completed", "summary": [],
        "content": [{"type": "reasoning_text", "text": "long private thinking"}], "encrypted_content": cipher})
}

fn assistant(text: &str) -> Value {
    json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
}

fn user(text: &str) -> Value {
    json!({"type": "message", "role": "user", "content": text})
}

fn call(id: &str) -> Value {
    json!({"type": "function_call", "id": format!("fc_{id}"), "call_id": id, "name": "lookup", "arguments": "{}", "status": "completed"})
}

fn output(id: &str) -> Value {
    json!({"type": "function_call_output", "call_id": id, "output": "42"})
}

/// The input after `fill`, or `None` when nothing was inserted.
fn filled(cache: &ReplayCache, key: &ReplayKey, input: Vec<Value>) -> Option<Vec<Value>> {
    let body = json!({"model": "grok-4.5", "input": input}).to_string();
    let out = cache.fill(key, body.as_bytes())?;
    let value: Value = serde_json::from_slice(&out).expect("json");
    Some(value["input"].as_array().expect("input").clone())
}

#[test]
fn the_missing_reasoning_goes_before_the_assistant_message_it_produced() {
    let cache = ReplayCache::default();
    let cipher = ciphertext(1);
    cache.remember(key(1), &[reasoning("rs_1", &cipher), assistant("first answer")]);
    let input = filled(&cache, &key(1), vec![user("q1"), assistant("first answer"), user("q2")]).expect("inserted");
    assert_eq!(input.len(), 4);
    assert_eq!(
        input[1],
        json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": cipher}),
        "the ciphertext only, no readable reasoning kept"
    );
    assert_eq!(input[2], assistant("first answer"));
    // A client that sent it back gets nothing inserted (matched by id or by ciphertext).
    let sent_back = vec![user("q1"), reasoning("rs_1", &cipher), assistant("first answer"), user("q2")];
    assert_eq!(filled(&cache, &key(1), sent_back), None);
    let renamed = json!({"type": "reasoning", "id": "rs_other", "summary": [], "encrypted_content": cipher});
    assert_eq!(filled(&cache, &key(1), vec![user("q1"), renamed, assistant("first answer")]), None);
}

#[test]
fn a_tool_turn_is_anchored_at_its_call_or_the_calls_output() {
    let cache = ReplayCache::default();
    let cipher = ciphertext(2);
    cache.remember(key(1), &[reasoning("rs_1", &cipher), call("c1")]);
    let with_call = filled(&cache, &key(1), vec![user("q"), call("c1"), output("c1")]).expect("inserted");
    let types: Vec<&str> = with_call.iter().map(|i| i["type"].as_str().unwrap_or("message")).collect();
    assert_eq!(types, ["message", "reasoning", "function_call", "function_call_output"]);
    assert_eq!(with_call[2], call("c1"), "the client's own call stays, not doubled");

    let only_output = filled(&cache, &key(1), vec![user("q"), output("c1")]).expect("inserted");
    let types: Vec<&str> = only_output.iter().map(|i| i["type"].as_str().unwrap_or("message")).collect();
    assert_eq!(types, ["message", "reasoning", "function_call", "function_call_output"], "the call is restored too");
    assert!(only_output[2].get("status").is_none(), "{}", only_output[2]);
}

#[test]
fn another_account_another_branch_or_no_anchor_gets_nothing() {
    let cache = ReplayCache::default();
    cache.remember(key(1), &[reasoning("rs_1", &ciphertext(3)), assistant("first answer")]);
    let history = vec![user("q1"), assistant("first answer"), user("q2")];
    assert_eq!(filled(&cache, &key(2), history.clone()), None, "ciphertext never crosses accounts");
    let other_session = ReplayKey { session: "sess-2".to_owned(), ..key(1) };
    assert_eq!(filled(&cache, &other_session, history.clone()), None);
    let other_model = ReplayKey { model: "grok-4.3".to_owned(), ..key(1) };
    assert_eq!(filled(&cache, &other_model, history), None);
    let edited = vec![user("q1"), assistant("an edited answer"), user("q2")];
    assert_eq!(filled(&cache, &key(1), edited), None, "the client's last assistant text differs");
    assert_eq!(filled(&cache, &key(1), vec![user("q1"), user("q2")]), None, "nothing of the turn to anchor at");
}

#[test]
fn only_plausible_ciphertext_is_kept_and_a_turn_without_reasoning_clears_the_entry() {
    let cache = ReplayCache::default();
    let history = vec![user("q1"), assistant("a"), user("q2")];
    cache.remember(key(1), &[reasoning("rs_x", "gAAAAABnotxai"), assistant("a")]);
    assert!(cache.is_empty(), "another vendor's ciphertext is not kept");
    cache.remember(key(1), &[reasoning("rs_1", &ciphertext(4)), assistant("a")]);
    assert!(filled(&cache, &key(1), history.clone()).is_some());
    cache.remember(key(1), &[assistant("a")]);
    assert_eq!(filled(&cache, &key(1), history), None, "the newer turn had no reasoning");
}

#[test]
fn a_turn_over_the_item_or_byte_bound_is_not_kept() {
    let limits = ReplayLimits { items_per_entry: 2, bytes_per_entry: 1_000, ..ReplayLimits::default() };
    let cache = ReplayCache::new(limits);
    cache.remember(key(1), &[reasoning("rs_1", &ciphertext(5)), call("c1"), call("c2")]);
    assert!(cache.is_empty(), "three items over a bound of two");
    let big = json!({"type": "function_call", "call_id": "c1", "name": "n", "arguments": "x".repeat(2_000)});
    cache.remember(key(1), &[reasoning("rs_1", &ciphertext(5)), big]);
    assert!(cache.is_empty(), "over the byte bound");
    cache.remember(key(1), &[reasoning("rs_1", &ciphertext(5)), call("c1")]);
    assert_eq!(cache.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn an_entry_lives_an_hour_and_the_oldest_of_too_many_is_evicted() {
    let cache = ReplayCache::new(ReplayLimits { entries: 2, ..ReplayLimits::default() });
    let history = vec![user("q1"), assistant("a"), user("q2")];
    cache.remember(key(1), &[reasoning("rs_1", &ciphertext(6)), assistant("a")]);
    tokio::time::advance(Duration::from_secs(3_599)).await;
    assert!(filled(&cache, &key(1), history.clone()).is_some());
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(filled(&cache, &key(1), history.clone()), None, "gone after one hour");

    for account in 1..=3 {
        cache.remember(key(account), &[reasoning("rs_1", &ciphertext(7)), assistant("a")]);
    }
    assert_eq!(cache.len(), 2);
    assert_eq!(filled(&cache, &key(1), history.clone()), None, "the oldest entry was evicted");
    assert!(filled(&cache, &key(3), history).is_some());
}

fn frame(event: &str, data: Value) -> SseFrame {
    SseFrame::from_event(event, data.to_string().as_bytes())
}

#[test]
fn the_recorder_keeps_a_completed_turn_and_nothing_of_a_failed_one() {
    let cache = Arc::new(ReplayCache::default());
    let history = vec![user("q1"), assistant("a"), user("q2")];
    let items = [reasoning("rs_1", &ciphertext(8)), assistant("a")];

    let mut failed = Recorder::new(cache.clone(), key(1));
    for item in &items {
        failed.observe(&frame("response.output_item.done", json!({"type": "response.output_item.done", "item": item})));
    }
    failed.observe(&frame("response.failed", json!({"type": "response.failed", "response": {"output": items}})));
    assert!(cache.is_empty());

    // The completed event's output is empty here: the done items are used.
    let mut completed = Recorder::new(cache.clone(), key(1));
    for item in &items {
        completed
            .observe(&frame("response.output_item.done", json!({"type": "response.output_item.done", "item": item})));
    }
    completed.observe(&frame("response.completed", json!({"type": "response.completed", "response": {"output": []}})));
    assert!(filled(&cache, &key(1), history).is_some());
}
