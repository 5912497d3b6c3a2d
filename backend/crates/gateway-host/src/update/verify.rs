//! Verifying what was downloaded: the checksum file's line for an archive, SHA-256, and the
//! Ed25519 signature of the checksum file.

use aws_lc_rs::signature::{ED25519, UnparsedPublicKey};

use super::UpdateError;

/// The SHA-256 that a `sha256sum`-format file lists for `file` (`<hex>  <name>` or
/// `<hex> *<name>`).
pub fn checksum_for(sums: &str, file: &str) -> Option<[u8; 32]> {
    sums.lines().find_map(|line| {
        let (hash, name) = line.trim_end().split_once(' ')?;
        let name = name.trim_start_matches(' ').trim_start_matches('*');
        (name == file).then(|| parse_hex(hash)).flatten()
    })
}

/// 64 hex digits as 32 bytes.
pub fn parse_hex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks an Ed25519 `signature` of `message` by `public_key`.
pub fn verify_signature(public_key: &[u8; 32], message: &[u8], signature: &[u8]) -> Result<(), UpdateError> {
    UnparsedPublicKey::new(&ED25519, public_key).verify(message, signature).map_err(|_| {
        UpdateError::Verification("the checksum file's signature does not verify with update.public_key".into())
    })
}
