//! Reasoning items of the client's history (PROTOCOL H.3, H.5, H.7): what of them can go to
//! xAI.
//!
//! - an item keeps `id`, `summary`, `content` (parts without a type are `reasoning_text`) and
//!   an `encrypted_content` that can be xAI's: standard base64, at least 50 decoded bytes, a
//!   byte-entropy ratio of at least 0.85, not another vendor's shape (a Fernet `gAAAA…` token
//!   as the Codex backend issues); any other ciphertext is dropped before sending;
//! - an item left with nothing portable becomes a developer note naming it;
//! - xAI decrypts a ciphertext only for the account that produced it: when it answers 400
//!   `invalid_encrypted_content`, [`strip_ciphertext`] gives the body to send once more.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use serde_json::{Map, Value, json};

const MIN_DECODED_BYTES: usize = 50;
const MIN_ENTROPY_RATIO: f64 = 0.85;
const KEPT: &[&str] = &["type", "id", "summary", "content", "encrypted_content"];

/// Whether `ciphertext` can be an xAI reasoning ciphertext.
pub fn plausible_ciphertext(ciphertext: &str) -> bool {
    if ciphertext.starts_with("gAAAA") {
        return false;
    }
    let decoded = STANDARD_NO_PAD.decode(ciphertext).or_else(|_| STANDARD.decode(ciphertext));
    decoded.is_ok_and(|bytes| bytes.len() >= MIN_DECODED_BYTES && entropy_ratio(&bytes) >= MIN_ENTROPY_RATIO)
}

/// Shannon entropy of the bytes over the most they could have (`log2` of their count, at most 8).
fn entropy_ratio(bytes: &[u8]) -> f64 {
    let mut counts = [0usize; 256];
    bytes.iter().for_each(|b| counts[usize::from(*b)] += 1);
    let len = bytes.len() as f64;
    let entropy: f64 = counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = *c as f64 / len;
            -p * p.log2()
        })
        .sum();
    entropy / len.log2().min(8.0)
}

/// The item as it goes upstream: only the portable fields, or a developer note when nothing
/// portable is left.
pub fn normalize(item: &mut Value) {
    let Some(object) = item.as_object_mut() else { return };
    object.retain(|key, _| KEPT.contains(&key.as_str()));
    if object.get("encrypted_content").and_then(Value::as_str).is_none_or(|c| !plausible_ciphertext(c)) {
        object.remove("encrypted_content");
    }
    if let Some(Value::Array(parts)) = object.get_mut("content") {
        for part in parts.iter_mut().filter_map(Value::as_object_mut) {
            part.entry("type").or_insert_with(|| json!("reasoning_text"));
        }
    }
    if !portable(object) {
        *item = omitted_note(object.get("id").and_then(Value::as_str));
    }
}

/// A ciphertext, or a summary or content text the model can read.
fn portable(item: &Map<String, Value>) -> bool {
    let has_text = |key: &str| {
        item.get(key).and_then(Value::as_array).is_some_and(|parts| {
            parts.iter().any(|p| p.get("text").and_then(Value::as_str).is_some_and(|t| !t.trim().is_empty()))
        })
    };
    item.contains_key("encrypted_content") || has_text("summary") || has_text("content")
}

fn omitted_note(id: Option<&str>) -> Value {
    let named = id.map(|id| format!(" ({id})")).unwrap_or_default();
    let text = format!("A reasoning item{named} of an earlier turn was omitted: it cannot be replayed to this model.");
    json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": text}]})
}

/// The body without any `encrypted_content` in its input reasoning items (each normalised
/// again), or `None` when it carries none.
pub fn strip_ciphertext(body: &[u8]) -> Option<Vec<u8>> {
    let mut value: Value = serde_json::from_slice(body).ok()?;
    let items = value.get_mut("input")?.as_array_mut()?;
    let mut stripped = false;
    for item in items.iter_mut() {
        if item.get("type").and_then(Value::as_str) != Some("reasoning") {
            continue;
        }
        if let Some(object) = item.as_object_mut()
            && object.remove("encrypted_content").is_some()
        {
            stripped = true;
            normalize(item);
        }
    }
    stripped.then(|| serde_json::to_vec(&value).ok()).flatten()
}
