//! Per-account identifiers (issue 18): what Codex sends as its installation id belongs to the
//! account that serves a request, never to the client that sent it. One user's installation
//! reaching several accounts links them; several users' installations on one account do too.
//!
//! The account's installation id is the one stored with its credential (minted by the OAuth
//! flow), else derived from the account's upstream id (stable across restarts and replicas).
//! A client's value is replaced, in the `x-codex-installation-id` header, in every
//! `client_metadata` member naming an installation id, and inside the JSON object Codex sends
//! as `x-codex-turn-metadata` (header and `client_metadata` member), over HTTP and WebSocket
//! alike.

use gateway_core::snapshot::AccountEntry;
use gateway_protocol::request::{BodyEdit, RequestBody};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::credential::OpenAiCredential;

/// The header Codex sends its installation id in.
pub const INSTALLATION_HEADER: &str = "x-codex-installation-id";

/// The header (and `client_metadata` member) of Codex's turn metadata: a JSON object that
/// names the installation id again (`installation_id`).
pub const TURN_METADATA_HEADER: &str = "x-codex-turn-metadata";

/// The identifiers one account presents upstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountIdentity {
    pub installation_id: String,
}

impl AccountIdentity {
    pub fn of(account: &AccountEntry, credential: &OpenAiCredential) -> Self {
        let upstream_id = credential.account_id.as_deref().unwrap_or(&account.record.external_account_id);
        Self::from_parts(credential.installation_id.as_deref(), upstream_id)
    }

    /// The stored installation id, else one derived from `upstream_account_id`.
    pub fn from_parts(stored: Option<&str>, upstream_account_id: &str) -> Self {
        let installation_id = stored
            .filter(|id| !id.trim().is_empty())
            .map(str::to_owned)
            .unwrap_or_else(|| derived_installation_id(upstream_account_id));
        Self { installation_id }
    }

    /// Replaces the client's installation ids in `client_metadata` (an object) with this
    /// account's; nothing when there is none. Member order and other members are kept.
    pub fn edit_body(&self, body: &[u8], view: &RequestBody, edit: &mut BodyEdit) {
        let Some(raw) = view.raw(body, "client_metadata") else { return };
        let Ok(Value::Object(mut metadata)) = serde_json::from_slice::<Value>(raw) else { return };
        let mut changed = false;
        for (key, value) in metadata.iter_mut() {
            if is_installation_key(key) && value.as_str() != Some(self.installation_id.as_str()) {
                *value = Value::String(self.installation_id.clone());
                changed = true;
            } else if let Some(nested) = value.as_str().and_then(|text| self.rewrite_json_object(text)) {
                *value = Value::String(nested);
                changed = true;
            }
        }
        if changed && let Ok(json) = serde_json::to_vec(&Value::Object(metadata)) {
            edit.set_raw("client_metadata", json);
        }
    }

    /// The client's installation id headers become this account's: `x-codex-installation-id`
    /// (only when the client sent one) and the `installation_id` inside `x-codex-turn-metadata`.
    pub fn edit_headers(&self, headers: &mut http::HeaderMap) {
        let name = http::HeaderName::from_static(INSTALLATION_HEADER);
        if headers.contains_key(&name)
            && let Ok(value) = http::HeaderValue::from_str(&self.installation_id)
        {
            headers.insert(name, value);
        }
        let name = http::HeaderName::from_static(TURN_METADATA_HEADER);
        let rewritten =
            headers.get(&name).and_then(|v| v.to_str().ok()).and_then(|text| self.rewrite_json_object(text));
        if let Some(value) = rewritten.and_then(|text| http::HeaderValue::from_str(&text).ok()) {
            headers.insert(name, value);
        }
    }

    /// `text` when it is a JSON object naming an installation id other than this account's:
    /// the same object (members in order) with this account's. `None`: nothing to change.
    fn rewrite_json_object(&self, text: &str) -> Option<String> {
        if !text.trim_start().starts_with('{') {
            return None;
        }
        let Ok(Value::Object(mut object)) = serde_json::from_str::<Value>(text) else { return None };
        let mut changed = false;
        for (key, value) in object.iter_mut() {
            if is_installation_key(key) && value.as_str() != Some(self.installation_id.as_str()) {
                *value = Value::String(self.installation_id.clone());
                changed = true;
            }
        }
        if !changed {
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
