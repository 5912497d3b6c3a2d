//! Per-account conversation identifiers (decision 0233): the session, thread, window, turn and
//! request ids and the `prompt_cache_key` a client names go upstream as values derived from
//! (serving account, client value) with the account's key — stable (the same client session on
//! the same account always has the same upstream value, so the upstream's prompt cache still
//! hits), different per account, and not reversible to the client's value. A UUID becomes a
//! UUID; a value with UUIDs inside (`<uuid>:<n>`) keeps its shape with each UUID replaced; any
//! other value becomes a UUID.

use std::fmt;

use hmac::Mac;

use super::key::hmac_with;

/// Normalised names (lower case, no `-`/`_`) ending in one of these name a conversation
/// identifier: `session-id`, `session_id`, `thread-id`, `x-codex-window-id`, `turn_id`,
/// `x-client-request-id`, `prompt_cache_key`, `conversation_id`, `parent_thread_id` …
const CONVERSATION_SUFFIXES: &[&str] =
    &["sessionid", "threadid", "conversationid", "windowid", "turnid", "clientrequestid", "promptcachekey"];

/// A header or member name that names a conversation identifier.
pub fn is_conversation_key(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace(['-', '_'], "");
    CONVERSATION_SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
}

/// One account's derivation. `Debug` hides the key.
#[derive(Clone, PartialEq, Eq)]
pub struct ConversationIds {
    account_key: [u8; 32],
}

impl fmt::Debug for ConversationIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ConversationIds([REDACTED])")
    }
}

impl ConversationIds {
    pub fn new(account_key: [u8; 32]) -> Self {
        Self { account_key }
    }

    /// The upstream value of the client's `value` (empty stays empty).
    pub fn upstream_value(&self, value: &str) -> String {
        if value.is_empty() {
            return String::new();
        }
        if value.len() == UUID_LEN && is_uuid(value.as_bytes()) {
            return self.derived_uuid(value);
        }
        let mut out = String::with_capacity(value.len());
        let mut rest = value;
        let mut replaced = false;
        while let Some(at) = find_uuid(rest.as_bytes()) {
            out.push_str(&rest[..at]);
            out.push_str(&self.derived_uuid(&rest[at..at + UUID_LEN]));
            rest = &rest[at + UUID_LEN..];
            replaced = true;
        }
        if !replaced {
            return self.derived_uuid(value);
        }
        out.push_str(rest);
        out
    }

    /// A UUID the gateway mints for a turn it originates (`codex_turn.rs`), from `seed` whatever
    /// its shape: HMAC-SHA-256(account key, "minted" label, seed), apart from every value derived
    /// from a client's identifier.
    pub fn minted_uuid(&self, seed: &str) -> String {
        self.uuid_of(b"minted\0", seed)
    }

    /// A version-4-shaped UUID from HMAC-SHA-256(account key, value). The client's version and
    /// timestamp bits (a v7 UUID dates its session) are not kept.
    fn derived_uuid(&self, value: &str) -> String {
        self.uuid_of(b"conversation\0", value)
    }

    fn uuid_of(&self, label: &[u8], value: &str) -> String {
        let mut mac = hmac_with(&self.account_key);
        mac.update(label);
        mac.update(value.as_bytes());
        let digest = mac.finalize().into_bytes();
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        uuid::Uuid::from_bytes(bytes).to_string()
    }
}

const UUID_LEN: usize = 36;

/// `8-4-4-4-12` hex digits.
fn is_uuid(bytes: &[u8]) -> bool {
    bytes.len() == UUID_LEN
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// Where the first UUID in `bytes` starts.
fn find_uuid(bytes: &[u8]) -> Option<usize> {
    (0..=bytes.len().checked_sub(UUID_LEN)?).find(|&at| is_uuid(&bytes[at..at + UUID_LEN]))
}
