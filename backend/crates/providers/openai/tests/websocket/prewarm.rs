//! Prewarms kept when the upstream socket is refused: what is kept, the byte budgets per client
//! key and in total, and the follow-up request built from a kept prewarm.

use bytes::Bytes;
use gateway_core::domain::ClientKeyId;
use gateway_protocol::request::RequestBody;
use provider_openai::websocket::prewarm::merge;
use provider_openai::websocket::{PrewarmBudget, PrewarmMemory};
use serde_json::{Value, json};

const ALICE: ClientKeyId = ClientKeyId(1);
const BOB: ClientKeyId = ClientKeyId(2);

/// Answers `body` as a prewarm of `key`; returns the synthetic response id.
fn prewarm(memory: &PrewarmMemory, key: ClientKeyId, body: &Value) -> String {
    let body = serde_json::to_vec(body).expect("json");
    let view = RequestBody::parse(&body).expect("valid");
    let frames = memory.answer(key, &body, &view, "gpt-5.4");
    assert_eq!(frames.len(), 2);
    let created: Value = serde_json::from_slice(&frames[0].data().expect("data")).expect("json");
    assert_eq!(created["type"], "response.created");
    created["response"]["id"].as_str().expect("id").to_owned()
}

fn sized(bytes: usize) -> Value {
    json!({"type": "response.create", "model": "gpt-5.4", "generate": false,
           "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x".repeat(bytes)}]}]})
}

#[test]
fn only_what_the_next_turn_needs_is_kept() {
    let memory = PrewarmMemory::new(PrewarmBudget::default());
    let body = json!({"type": "response.create", "model": "gpt-5.4", "generate": false, "stream": true, "store": false,
                      "temperature": 0.2, "previous_response_id": null, "instructions": "be brief",
                      "tools": [{"type": "function", "name": "f"}], "input": [{"type": "message", "role": "user", "content": []}]});
    let id = prewarm(&memory, ALICE, &body);
    let kept: Value = serde_json::from_slice(&memory.kept(ALICE, &id).expect("kept")).expect("json");
    assert_eq!(
        kept,
        json!({"instructions": "be brief", "tools": [{"type": "function", "name": "f"}],
               "input": [{"type": "message", "role": "user", "content": []}]})
    );
    assert!(memory.kept(BOB, &id).is_none(), "another key's prewarm is unknown");
    assert!(!memory.knows(BOB, &id));
}

#[test]
fn a_key_over_its_budget_loses_its_own_oldest_prewarms_first() {
    let memory = PrewarmMemory::new(PrewarmBudget { per_key_bytes: 10_000, total_bytes: 100_000 });
    let bob = prewarm(&memory, BOB, &sized(3_000));
    let alice: Vec<String> = (0..5).map(|_| prewarm(&memory, ALICE, &sized(3_000))).collect();
    // Three of ~3.3 KB fit in 10,000 bytes: Alice's first two went, Bob's stays.
    assert!(!memory.knows(ALICE, &alice[0]) && !memory.knows(ALICE, &alice[1]));
    assert!(alice[2..].iter().all(|id| memory.knows(ALICE, id)));
    assert!(memory.knows(BOB, &bob));
    let (count, bytes) = memory.usage();
    assert_eq!(count, 4);
    assert!(bytes <= 4 * 3_400, "{bytes}");
}

#[test]
fn the_total_budget_evicts_the_oldest_of_any_key() {
    let memory = PrewarmMemory::new(PrewarmBudget { per_key_bytes: 10_000, total_bytes: 10_000 });
    let bob = prewarm(&memory, BOB, &sized(3_000));
    let alice: Vec<String> = (0..3).map(|_| prewarm(&memory, ALICE, &sized(3_000))).collect();
    assert!(!memory.knows(BOB, &bob), "the oldest prewarm went to make room");
    assert!(alice.iter().all(|id| memory.knows(ALICE, id)));
    assert!(memory.usage().1 <= 10_000);
}

#[test]
fn a_prewarm_larger_than_the_budget_is_answered_but_not_kept() {
    let memory = PrewarmMemory::new(PrewarmBudget { per_key_bytes: 4_000, total_bytes: 100_000 });
    let small = prewarm(&memory, ALICE, &sized(1_000));
    let large = prewarm(&memory, ALICE, &sized(5_000));
    assert!(!memory.knows(ALICE, &large));
    assert!(memory.knows(ALICE, &small), "nothing was evicted for a prewarm that cannot fit");
}

#[test]
fn the_next_turn_carries_both_inputs_and_the_prewarm_members_it_lacks() {
    let kept = br#"{"instructions":"be brief","tools":[{"type":"function","name":"f"}],"input":[{"type":"message","role":"developer","content":[]}]}"#;
    let turn = Bytes::from_static(
        br#"{"type":"response.create","model":"gpt-5.4","previous_response_id":"resp_1","tools":[],"input":[{"type":"function_call_output","call_id":"c","output":"ok"}]}"#,
    );
    let view = RequestBody::parse(&turn).expect("valid");
    let merged: Value = serde_json::from_slice(&merge(kept, &turn, &view).expect("merged")).expect("json");
    assert_eq!(merged["instructions"], "be brief");
    assert_eq!(merged["tools"], json!([]), "the turn's own members win");
    assert_eq!(
        merged["input"],
        json!([{"type": "message", "role": "developer", "content": []},
               {"type": "function_call_output", "call_id": "c", "output": "ok"}])
    );
}

#[test]
fn bare_string_inputs_become_user_messages_when_merged() {
    let kept = br#"{"input":"first"}"#;
    let turn = Bytes::from_static(br#"{"model":"gpt-5.4","input":"second"}"#);
    let view = RequestBody::parse(&turn).expect("valid");
    let merged: Value = serde_json::from_slice(&merge(kept, &turn, &view).expect("merged")).expect("json");
    let message =
        |text: &str| json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]});
    assert_eq!(merged["input"], json!([message("first"), message("second")]));
    let empty = Bytes::from_static(br#"{"model":"gpt-5.4","input":[]}"#);
    let view = RequestBody::parse(&empty).expect("valid");
    let merged: Value =
        serde_json::from_slice(&merge(br#"{"input":[ ]}"#, &empty, &view).expect("merged")).expect("json");
    assert_eq!(merged["input"], json!([]));
}
