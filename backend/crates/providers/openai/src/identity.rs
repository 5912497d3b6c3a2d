//! Per-account identifiers (issue 18): what Codex sends to identify its installation and its
//! conversations belongs to the account that serves a request, never to the client that sent
//! it. One user's identifiers reaching several accounts link them; several users' installations
//! on one account do too.
//!
//! - The installation id: the one stored with the account's credential (minted by the OAuth
//!   flow), else derived from the account's upstream id (stable across restarts and replicas).
//!   A client's value is replaced in the `x-codex-installation-id` header, in every
//!   `client_metadata` member naming an installation id, and inside the JSON object Codex sends
//!   as `x-codex-turn-metadata` (header and `client_metadata` member).
//! - Conversation identifiers (session, thread, window, turn, client request ids and
//!   `prompt_cache_key`; `identity/conversation.rs`): replaced by values derived from the
//!   serving account and the client's value with the deployment's identity key
//!   (`identity/key.rs`, decision 0233), in the same places and the top-level
//!   `prompt_cache_key`.
//!
//! Over HTTP and WebSocket alike (handshake headers and `response.create` bodies). The gateway's
//! own session affinity reads the client's values before any of this.

pub mod conversation;
pub mod key;

use gateway_core::snapshot::AccountEntry;
use gateway_protocol::request::{BodyEdit, RequestBody};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use self::conversation::{ConversationIds, is_conversation_key};
pub use self::key::IdentityKey;
use crate::credential::OpenAiCredential;

/// The header Codex sends its installation id in.
pub const INSTALLATION_HEADER: &str = "x-codex-installation-id";

/// The header (and `client_metadata` member) of Codex's turn metadata: a JSON object that
/// names the installation id again (`installation_id`) and the conversation's ids.
pub const TURN_METADATA_HEADER: &str = "x-codex-turn-metadata";

/// The top-level body field naming the client's prompt cache (its conversation id in Codex).
pub const PROMPT_CACHE_KEY: &str = "prompt_cache_key";

/// The identifiers one account presents upstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountIdentity {
    pub installation_id: String,
    conversation: ConversationIds,
}

impl AccountIdentity {
    pub fn of(account: &AccountEntry, credential: &OpenAiCredential, key: &IdentityKey) -> Self {
        let upstream_id = credential.account_id.as_deref().unwrap_or(&account.record.external_account_id);
        Self::from_parts(credential.installation_id.as_deref(), upstream_id, key)
    }

    /// The stored installation id, else one derived from `upstream_account_id`; conversation
    /// identifiers derived with `key`'s subkey for `upstream_account_id`.
    pub fn from_parts(stored: Option<&str>, upstream_account_id: &str, key: &IdentityKey) -> Self {
        let installation_id = stored
            .filter(|id| !id.trim().is_empty())
            .map(str::to_owned)
            .unwrap_or_else(|| derived_installation_id(upstream_account_id));
        Self { installation_id, conversation: ConversationIds::new(key.for_account(upstream_account_id)) }
    }

    /// What this account sends upstream for the client's conversation identifier `value`.
    pub fn upstream_value(&self, value: &str) -> String {
        self.conversation.upstream_value(value)
    }

    /// A UUID this account presents for an identifier the gateway mints itself (the ids of a
    /// turn it originates for a non-Codex client, `codex_turn.rs`): stable for the same `seed`
    /// on the same account, different per account, never equal to a derived client value.
    pub fn minted_id(&self, seed: &str) -> String {
        self.conversation.minted_uuid(seed)
    }

    /// Replaces the client's identifiers in the body: `prompt_cache_key`, and in
    /// `client_metadata` (an object) the installation ids and conversation ids, also inside a
    /// member holding a JSON object. Member order and other members are kept.
    pub fn edit_body(&self, body: &[u8], view: &RequestBody, edit: &mut BodyEdit) {
        if let Ok(Some(cache_key)) = view.string(body, PROMPT_CACHE_KEY) {
            let upstream = self.upstream_value(&cache_key);
            if upstream != cache_key {
                edit.set_string(PROMPT_CACHE_KEY, &upstream);
            }
        }
        let Some(raw) = view.raw(body, "client_metadata") else { return };
        let Ok(Value::Object(mut metadata)) = serde_json::from_slice::<Value>(raw) else { return };
        let mut changed = self.rewrite_members(&mut metadata);
        for value in metadata.values_mut() {
            if let Some(nested) = value.as_str().and_then(|text| self.rewrite_json_object(text)) {
                *value = Value::String(nested);
                changed = true;
            }
        }
        if changed && let Ok(json) = serde_json::to_vec(&Value::Object(metadata)) {
            edit.set_raw("client_metadata", json);
        }
    }

    /// The client's identifier headers become this account's: `x-codex-installation-id` (only
    /// when the client sent one), every conversation id header (`session-id`/`session_id` as
    /// the client spelled it, `thread-id`, `x-codex-window-id`, `x-client-request-id` …), and
    /// the ids inside `x-codex-turn-metadata`.
    pub fn edit_headers(&self, headers: &mut http::HeaderMap) {
        let name = http::HeaderName::from_static(INSTALLATION_HEADER);
        if headers.contains_key(&name)
            && let Ok(value) = http::HeaderValue::from_str(&self.installation_id)
        {
            headers.insert(name, value);
        }
        let conversation: Vec<http::HeaderName> =
            headers.keys().filter(|name| is_conversation_key(name.as_str())).cloned().collect();
        for name in conversation {
            let upstream = headers.get(&name).and_then(|v| v.to_str().ok()).map(|v| self.upstream_value(v));
            if let Some(value) = upstream.and_then(|text| http::HeaderValue::from_str(&text).ok()) {
                headers.insert(name, value);
            }
        }
        let name = http::HeaderName::from_static(TURN_METADATA_HEADER);
        let rewritten =
            headers.get(&name).and_then(|v| v.to_str().ok()).and_then(|text| self.rewrite_json_object(text));
        if let Some(value) = rewritten.and_then(|text| http::HeaderValue::from_str(&text).ok()) {
            headers.insert(name, value);
        }
    }

    /// The installation ids and conversation ids among `object`'s members become this
    /// account's; whether anything changed.
    fn rewrite_members(&self, object: &mut Map<String, Value>) -> bool {
        let mut changed = false;
        for (key, value) in object.iter_mut() {
            if is_installation_key(key) {
                if value.as_str() != Some(self.installation_id.as_str()) {
                    *value = Value::String(self.installation_id.clone());
                    changed = true;
                }
            } else if is_conversation_key(key)
                && let Some(text) = value.as_str()
            {
                let upstream = self.upstream_value(text);
                if upstream != text {
                    *value = Value::String(upstream);
                    changed = true;
                }
            }
        }
        changed
    }

    /// `text` when it is a JSON object naming identifiers to replace: the same object (members
    /// in order) with this account's. `None`: nothing to change.
    fn rewrite_json_object(&self, text: &str) -> Option<String> {
        if !text.trim_start().starts_with('{') {
            return None;
        }
        let Ok(Value::Object(mut object)) = serde_json::from_str::<Value>(text) else { return None };
        if !self.rewrite_members(&mut object) {
            return None;
        }
        serde_json::to_string(&Value::Object(object)).ok()
    }
}

/// `installation_id`, `x-codex-installation-id`, `installationId` …
fn is_installation_key(key: &str) -> bool {
    key.to_ascii_lowercase().replace(['-', '_'], "").contains("installationid")
}

/// A UUID-shaped id from SHA-256 of the account's upstream id: stable, and not the client's.
pub fn derived_installation_id(upstream_account_id: &str) -> String {
    let digest = Sha256::digest(format!("switchboard installation id\0{upstream_account_id}").as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    uuid::Uuid::from_bytes(bytes).to_string()
}
