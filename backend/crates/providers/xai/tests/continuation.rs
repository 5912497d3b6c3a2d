//! Replay continuation from gateway-held transcripts (PROTOCOL H.3, decision 0290): what a
//! completed response leaves in the coordination store (the in-process adapter and real Redis),
//! who can read it, its bounds and TTL (paused time), and what a replay sends in front of the
//! new input.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use gateway_core::coordination::TranscriptStore;
use gateway_core::domain::{AccountId, ClientKeyId};
use gateway_protocol::SseFrame;
use gateway_store::memory::MemoryCoordination;
use gateway_store::redis::{RedisCoordination, RedisSettings};
use provider_xai::continuation::{
    Held, MAX_OUTPUT_ITEMS, MAX_TRANSCRIPT_BYTES, TRANSCRIPT_TTL, Transcripts, input_items, prepend,
};
use serde_json::{Value, json};

const KEY: ClientKeyId = ClientKeyId(11);
const ACCOUNT: AccountId = AccountId(1);

fn ciphertext(seed: u64) -> String {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d ^ seed;
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

fn reasoning(id: &str, cipher: &str) -> Value {
    json!({"type": "reasoning", "id": id, "status": "completed", "summary": [],
        "content": [{"type": "reasoning_text", "text": "thinking"}], "encrypted_content": cipher})
}

fn assistant(text: &str) -> Value {
    json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
}

fn frame(event: &str, data: Value) -> SseFrame {
    SseFrame::from_event(event, data.to_string().as_bytes())
}

fn completed(id: &str, output: &[Value]) -> SseFrame {
    frame("response.completed", json!({"type": "response.completed", "response": {"id": id, "output": output}}))
}

fn memory() -> (Arc<Transcripts>, Arc<MemoryCoordination>) {
    let store = Arc::new(MemoryCoordination::new());
    (Arc::new(Transcripts::new(store.clone())), store)
}

/// Runs one stream's frames through a recorder of `account`, finishing on the terminal.
async fn record(
    transcripts: &Arc<Transcripts>,
    account: AccountId,
    earlier: Vec<Value>,
    sent: &Value,
    frames: &[SseFrame],
) {
    let mut recorder = transcripts.recorder(KEY, account, earlier, sent.to_string().as_bytes());
    for frame in frames {
        if let Some(done) = recorder.observe(frame) {
            recorder.finish(done).await;
        }
    }
}

#[tokio::test]
async fn a_completed_response_keeps_its_input_as_sent_and_its_output_for_its_key_only() {
    let (transcripts, _) = memory();
    let cipher = ciphertext(1);
    let sent = json!({"model": "grok-4.5", "input": "first question", "store": false});
    let output = [reasoning("rs_1", &cipher), assistant("first answer")];
    record(&transcripts, ACCOUNT, Vec::new(), &sent, &[completed("resp_1", &output)]).await;

    let held = transcripts.load(KEY, "resp_1").await.expect("kept");
    assert_eq!(held.account, ACCOUNT);
    assert_eq!(held.items.len(), 3, "{:?}", held.items);
    assert_eq!(
        held.items[0],
        json!({"type": "message", "role": "user",
        "content": [{"type": "input_text", "text": "first question"}]}),
        "a text input is one user message"
    );
    assert_eq!(held.items[1]["encrypted_content"], json!(cipher));
    assert!(held.items[1].get("status").is_none(), "only the portable reasoning fields: {}", held.items[1]);
    assert_eq!(held.items[2], assistant("first answer"));
    assert!(transcripts.load(ClientKeyId(12), "resp_1").await.is_none(), "another key reads nothing");
    assert!(transcripts.load(KEY, "resp_2").await.is_none());
}

#[tokio::test]
async fn without_a_completed_output_the_done_items_are_kept_and_a_failed_response_keeps_nothing() {
    let (transcripts, _) = memory();
    let sent = json!({"input": [{"type": "message", "role": "user", "content": "q"}]});
    let done = frame("response.output_item.done", json!({"item": assistant("a")}));
    record(&transcripts, ACCOUNT, Vec::new(), &sent, &[done.clone(), completed("resp_done", &[])]).await;
    let held = transcripts.load(KEY, "resp_done").await.expect("kept");
    assert_eq!(held.items, vec![json!({"type": "message", "role": "user", "content": "q"}), assistant("a")]);

    let failed = frame("response.failed", json!({"response": {"id": "resp_failed", "output": [assistant("a")]}}));
    let incomplete = frame("response.incomplete", json!({"response": {"id": "resp_cut", "output": [assistant("a")]}}));
    record(&transcripts, ACCOUNT, Vec::new(), &sent, &[done.clone(), failed]).await;
    record(&transcripts, ACCOUNT, Vec::new(), &sent, &[done, incomplete]).await;
    assert!(transcripts.load(KEY, "resp_failed").await.is_none());
    assert!(transcripts.load(KEY, "resp_cut").await.is_none());
}

#[tokio::test]
async fn a_chained_turn_keeps_the_earlier_transcript_in_front_of_its_own() {
    let (transcripts, _) = memory();
    let first = json!({"input": "one"});
    record(&transcripts, ACCOUNT, Vec::new(), &first, &[completed("resp_1", &[assistant("a1")])]).await;
    let held = transcripts.load(KEY, "resp_1").await.expect("first");
    // A native continuation: the body carries only the new input; the held items precede it.
    let second = json!({"input": "two", "previous_response_id": "resp_1"});
    record(&transcripts, ACCOUNT, held.items.clone(), &second, &[completed("resp_2", &[assistant("a2")])]).await;
    let chained = transcripts.load(KEY, "resp_2").await.expect("second");
    let texts: Vec<Value> = chained.items.iter().map(|i| i["content"][0]["text"].clone()).collect();
    assert_eq!(texts, vec![json!("one"), json!("a1"), json!("two"), json!("a2")]);
}

#[tokio::test]
async fn a_transcript_over_its_bounds_is_not_kept() {
    let (transcripts, _) = memory();
    let sent = json!({"input": "q"});
    let many: Vec<Value> = (0..=MAX_OUTPUT_ITEMS).map(|n| assistant(&n.to_string())).collect();
    record(&transcripts, ACCOUNT, Vec::new(), &sent, &[completed("resp_many", &many)]).await;
    assert!(transcripts.load(KEY, "resp_many").await.is_none(), "over 4,096 output items");
    let at_bound: Vec<Value> = many[..MAX_OUTPUT_ITEMS].to_vec();
    record(&transcripts, ACCOUNT, Vec::new(), &sent, &[completed("resp_bound", &at_bound)]).await;
    assert!(transcripts.load(KEY, "resp_bound").await.is_some(), "4,096 output items are kept");

    let huge = json!({"input": "x".repeat(MAX_TRANSCRIPT_BYTES)});
    record(&transcripts, ACCOUNT, Vec::new(), &huge, &[completed("resp_huge", &[assistant("a")])]).await;
    assert!(transcripts.load(KEY, "resp_huge").await.is_none(), "over 8 MiB");
}

#[tokio::test(start_paused = true)]
async fn a_transcript_lives_four_hours() {
    let (transcripts, _) = memory();
    record(&transcripts, ACCOUNT, Vec::new(), &json!({"input": "q"}), &[completed("resp_1", &[assistant("a")])]).await;
    assert_eq!(TRANSCRIPT_TTL, Duration::from_secs(4 * 3600));
    tokio::time::advance(TRANSCRIPT_TTL - Duration::from_secs(1)).await;
    assert!(transcripts.load(KEY, "resp_1").await.is_some(), "still held just before four hours");
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(transcripts.load(KEY, "resp_1").await.is_none(), "gone after four hours");
}

#[test]
fn a_replay_on_another_account_carries_no_ciphertext() {
    let cipher = ciphertext(2);
    let held = Held {
        account: ACCOUNT,
        items: vec![
            reasoning("rs_1", &cipher),
            json!({"type": "reasoning", "id": "rs_2", "encrypted_content": cipher}),
            assistant("a"),
        ],
    };
    let same = held.for_account(ACCOUNT);
    assert_eq!(same, held.items, "the account that produced it gets it unchanged");
    let other = held.for_account(AccountId(2));
    assert!(other[0].get("encrypted_content").is_none(), "{}", other[0]);
    assert_eq!(other[0]["content"][0]["text"], json!("thinking"), "the readable reasoning stays");
    assert_eq!(other[1]["role"], json!("developer"), "nothing readable left: a note");
    assert_eq!(other[2], assistant("a"));

    let body = json!({"model": "grok-4.5", "input": "next", "stream": true}).to_string();
    let replayed: Value = serde_json::from_slice(&prepend(body.as_bytes(), other).expect("prepend")).expect("json");
    let input = replayed["input"].as_array().expect("input");
    assert_eq!(input.len(), 4, "the transcript, then the new input");
    assert_eq!(input[3]["content"][0]["text"], json!("next"));
    assert_eq!(replayed["stream"], json!(true), "the rest of the body is unchanged");
    assert_eq!(input_items(&serde_json::to_vec(&replayed).expect("bytes")).len(), 4);
}

#[tokio::test]
async fn transcripts_round_trip_through_redis() -> Result<(), Box<dyn std::error::Error>> {
    let store = RedisCoordination::new(RedisSettings::new(
        test_support::redis_url(),
        test_support::unique_prefix("xai_transcripts"),
    ))?;
    store.ping().await?;
    let store: Arc<dyn TranscriptStore> = Arc::new(store);
    let transcripts = Arc::new(Transcripts::new(store));
    let cipher = ciphertext(3);
    let output = [reasoning("rs_1", &cipher), assistant("answer")];
    record(&transcripts, AccountId(5), Vec::new(), &json!({"input": "q"}), &[completed("resp_r", &output)]).await;
    let held = transcripts.load(KEY, "resp_r").await.expect("kept in Redis");
    assert_eq!(held.account, AccountId(5));
    assert_eq!(held.items[1]["encrypted_content"], json!(cipher));
    assert!(transcripts.load(ClientKeyId(99), "resp_r").await.is_none());
    Ok(())
}
