//! Reasoning ciphertext bound to the account that produced it (PROTOCOL H.5, H.7): xAI can
//! decrypt `encrypted_content` only for the team that produced it, and refuses a request whose
//! input carries a reasoning item it cannot decrypt with 400 `invalid_encrypted_content`.
//!
//! The simulator's ciphertext is standard base64 (unpadded) of a 16-byte seal of the account
//! (SHA-256 of its id) followed by 80 high-entropy bytes; an input item is accepted when its
//! ciphertext decodes (padded or not) and starts with the seal of the calling account.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::ids::filler_bytes;

const SEAL_LEN: usize = 16;

fn seal(account: &str) -> [u8; SEAL_LEN] {
    let digest = Sha256::digest(format!("upstream-sim:xai:reasoning:{account}").as_bytes());
    let mut out = [0u8; SEAL_LEN];
    out.copy_from_slice(&digest[..SEAL_LEN]);
    out
}

/// A fresh ciphertext only `account` can replay.
pub fn ciphertext(account: &str) -> String {
    let mut bytes = seal(account).to_vec();
    bytes.extend_from_slice(&filler_bytes(80));
    STANDARD_NO_PAD.encode(bytes)
}

/// A ciphertext of no account (flavors without an owner).
pub fn unowned_ciphertext() -> String {
    STANDARD_NO_PAD.encode(filler_bytes(96))
}

fn decrypts(ciphertext: &str, account: &str) -> bool {
    let decoded = STANDARD_NO_PAD.decode(ciphertext.trim_end_matches('=')).or_else(|_| STANDARD.decode(ciphertext));
    decoded.is_ok_and(|bytes| bytes.len() > SEAL_LEN && bytes[..SEAL_LEN] == seal(account))
}

/// The id (or index) of the first input reasoning item whose `encrypted_content` `account`
/// cannot decrypt.
pub fn undecryptable_item(body: &Value, account: &str) -> Option<String> {
    let items = body.get("input")?.as_array()?;
    items.iter().enumerate().find_map(|(index, item)| {
        if item.get("type").and_then(Value::as_str) != Some("reasoning") {
            return None;
        }
        let ciphertext = item.get("encrypted_content").filter(|v| !v.is_null())?;
        let readable = ciphertext.as_str().is_some_and(|c| decrypts(c, account));
        (!readable).then(|| item.get("id").and_then(Value::as_str).map_or_else(|| format!("#{index}"), str::to_owned))
    })
}
