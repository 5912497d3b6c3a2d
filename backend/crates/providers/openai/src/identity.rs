//! Per-account identifiers (issue 18): what Codex sends as its installation id belongs to the
//! account that serves a request, never to the client that sent it. One user's installation
//! reaching several accounts links them; several users' installations on one account do too.
//!
//! The account's installation id is the one stored with its credential (minted by the OAuth
//! flow), else derived from the account's upstream id (stable across restarts and replicas).
//! A client's value is replaced, in the `x-codex-installation-id` header and in every
//! `client_metadata` member naming an installation id, over HTTP and WebSocket alike.

use gateway_core::snapshot::AccountEntry;
use gateway_protocol::request::{BodyEdit, RequestBody};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::credential::OpenAiCredential;

/// The header Codex sends its installation id in.
pub const INSTALLATION_HEADER: &str = "x-codex-installation-id";

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
            }
        }
        if changed && let Ok(json) = serde_json::to_vec(&Value::Object(metadata)) {
            edit.set_raw("client_metadata", json);
        }
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
