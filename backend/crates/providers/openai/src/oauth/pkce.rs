//! PKCE and the other random values of a login (PROTOCOL §A.2): a 64-byte verifier and a
//! 32-byte state, both base64url without padding; the challenge is `S256` of the verifier.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

fn random_b64(len: usize) -> String {
    let mut bytes = vec![0u8; len];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A new PKCE verifier (86 characters).
pub fn verifier() -> String {
    random_b64(64)
}

/// `base64url(SHA-256(verifier))` without padding.
pub fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// A new OAuth `state` (43 characters).
pub fn state() -> String {
    random_b64(32)
}

/// A new per-account installation id.
pub fn installation_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
