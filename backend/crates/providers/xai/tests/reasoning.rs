//! Reasoning items of the history (PROTOCOL H.3, H.5): which ciphertext may go to xAI, what is
//! left of an item, the body resent without ciphertext, and the refusal that asks for it.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use provider_xai::classify::is_reasoning_decode_failure;
use provider_xai::reasoning::{normalize, plausible_ciphertext, strip_ciphertext};
use provider_xai::request::prepare;
use serde_json::{Value, json};

/// 96 distinct-looking bytes (a xorshift sequence).
fn random_bytes(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn only_high_entropy_standard_base64_of_50_bytes_or_more_is_kept() {
    let bytes = random_bytes(96);
    assert!(plausible_ciphertext(&STANDARD_NO_PAD.encode(&bytes)), "unpadded");
    assert!(plausible_ciphertext(&STANDARD.encode(random_bytes(97))), "padded");
    assert!(!plausible_ciphertext(&STANDARD_NO_PAD.encode(&bytes[..40])), "too short");
    assert!(!plausible_ciphertext(&STANDARD_NO_PAD.encode([7u8; 96])), "no entropy");
    assert!(!plausible_ciphertext(&STANDARD_NO_PAD.encode("a".repeat(30) + &"b".repeat(30))), "low entropy");
    assert!(!plausible_ciphertext(&format!("gAAAAAB{}", URL_SAFE_NO_PAD.encode(random_bytes(192)))), "Fernet (Codex)");
    let url_safe = URL_SAFE_NO_PAD.encode(&bytes);
    assert!(url_safe.contains(['-', '_']), "the sample has URL-safe characters");
    assert!(!plausible_ciphertext(&url_safe), "not the standard alphabet");
    assert!(!plausible_ciphertext("not base64 at all!"));
}

#[test]
fn an_item_keeps_its_portable_fields_and_becomes_a_note_when_none_is_left() {
    let ciphertext = STANDARD_NO_PAD.encode(random_bytes(96));
    let mut item = json!({"type": "reasoning", "id": "rs_1", "status": "completed", "summary": [],
        "content": [{"text": "thinking"}], "encrypted_content": ciphertext});
    normalize(&mut item);
    assert_eq!(
        item,
        json!({"type": "reasoning", "id": "rs_1", "summary": [],
            "content": [{"type": "reasoning_text", "text": "thinking"}], "encrypted_content": ciphertext})
    );
    let mut foreign = json!({"type": "reasoning", "id": "rs_2", "summary": [{"type": "summary_text", "text": "s"}],
        "encrypted_content": "gAAAAABxyz"});
    normalize(&mut foreign);
    assert_eq!(foreign, json!({"type": "reasoning", "id": "rs_2", "summary": [{"type": "summary_text", "text": "s"}]}));
    let mut empty = json!({"type": "reasoning", "id": "rs_3", "summary": [], "encrypted_content": null});
    normalize(&mut empty);
    assert_eq!(empty["type"], json!("message"));
    assert_eq!(empty["role"], json!("developer"));
    assert!(empty["content"][0]["text"].as_str().expect("note").contains("rs_3"));
}

#[test]
fn prepare_edits_reasoning_items_of_the_input() {
    let ciphertext = STANDARD_NO_PAD.encode(random_bytes(80));
    let body = json!({"model": "grok", "input": [
        {"type": "message", "role": "user", "content": "q"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "status": "completed", "encrypted_content": ciphertext},
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gAAAAABabc"},
    ]});
    let prepared = prepare(body.to_string().as_bytes(), "grok-4.5", "key-1").expect("prepared");
    let sent: Value = serde_json::from_slice(&prepared.body).expect("json");
    assert_eq!(
        sent["input"][1],
        json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": ciphertext})
    );
    assert_eq!(sent["input"][2]["role"], json!("developer"));
}

#[test]
fn the_resend_drops_every_ciphertext_and_is_none_without_one() {
    let ciphertext = STANDARD_NO_PAD.encode(random_bytes(80));
    let body = json!({"model": "grok-4.5", "stream": true, "input": [
        {"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "t"}], "encrypted_content": ciphertext},
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": ciphertext},
        {"type": "message", "role": "user", "content": "q"},
    ]});
    let resent: Value =
        serde_json::from_slice(&strip_ciphertext(body.to_string().as_bytes()).expect("resend")).expect("json");
    assert_eq!(
        resent["input"][0],
        json!({"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "t"}]})
    );
    assert_eq!(resent["input"][1]["role"], json!("developer"), "nothing readable is left of rs_2");
    assert_eq!(resent["input"][2], body["input"][2]);
    assert_eq!(resent["stream"], json!(true));
    let plain =
        json!({"input": [{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "s"}]}]});
    assert_eq!(strip_ciphertext(plain.to_string().as_bytes()), None, "nothing to strip: no resend");
}

#[test]
fn the_refusal_that_asks_for_a_resend() {
    let flat = br#"{"code":"invalid_encrypted_content","error":"Could not decrypt the encrypted_content of reasoning item rs_1"}"#;
    assert!(is_reasoning_decode_failure(400, flat));
    let nested = br#"{"error":{"code":"invalid_request","message":"The encrypted_content of item rs_1 could not be verified."}}"#;
    assert!(is_reasoning_decode_failure(400, nested));
    assert!(is_reasoning_decode_failure(400, br#"{"error":"Could not decode the compaction blob"}"#));
    assert!(!is_reasoning_decode_failure(400, br#"{"code":"invalid_argument","error":"temperature out of range"}"#));
    assert!(!is_reasoning_decode_failure(403, flat), "only a 400");
}
