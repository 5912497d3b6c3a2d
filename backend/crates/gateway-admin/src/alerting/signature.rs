//! `X-Switchboard-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
//!
//! A receiver recomputes the HMAC over the timestamp, a dot and the raw body, compares in
//! constant time, and refuses timestamps older than its tolerance (replays).

use hmac::{Hmac, KeyInit, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

pub const SIGNATURE_HEADER: &str = "x-switchboard-signature";

/// The header value for `body` sent at `timestamp` (unix seconds).
pub fn sign(secret: &SecretString, timestamp: i64, body: &[u8]) -> String {
    format!("t={timestamp},v1={}", hex(&mac(secret.expose_secret().as_bytes(), timestamp, body)))
}

/// Whether `header` is a valid signature of `body` under `secret` (any timestamp).
pub fn verify(secret: &str, header: &str, body: &[u8]) -> bool {
    let mut timestamp = None;
    let mut signature = None;
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => signature = Some(value),
            _ => {}
        }
    }
    let (Some(timestamp), Some(signature)) = (timestamp, signature) else { return false };
    let expected = hex(&mac(secret.as_bytes(), timestamp, body));
    expected.len() == signature.len()
        && expected.bytes().zip(signature.bytes()).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0
}

fn mac(secret: &[u8], timestamp: i64, body: &[u8]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret).expect("HMAC accepts keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
