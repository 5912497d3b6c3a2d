//! The key layout. Keys one script touches share a hash tag, so the layout works on a Redis
//! Cluster too:
//! - hot family `{P}:…` (admission, accounts, affinity, circuits, boots and replicas): the
//!   acquire script touches all of them at once, so they live in one slot;
//! - `P:pin:{id}`, `P:oauth:v1:<provider>:{flow}`, `P:transcript:{key}`, `P:lease:{name}…`: one
//!   tag per record.

use gateway_core::coordination::affinity::hex;
use gateway_core::coordination::{AffinityKey, CoordinationError, OAuthFlowKey, TranscriptKey};
use gateway_core::domain::{AccountId, BootId, ClientKeyId, ProviderKind, ReplicaName};
use sha2::{Digest, Sha256};

pub(crate) struct KeyLayout {
    prefix: String,
    hot: String,
}

impl KeyLayout {
    pub(crate) fn new(prefix: &str) -> Result<Self, CoordinationError> {
        if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_graphic() && c != '{' && c != '}') {
            return Err(CoordinationError::InvalidInput(format!(
                "redis key prefix {prefix:?} must be non-empty printable ASCII without braces"
            )));
        }
        Ok(Self { prefix: prefix.to_owned(), hot: format!("{{{prefix}}}") })
    }

    /// A key in the hot slot that no script reads or writes (fills unused KEYS positions).
    pub(crate) fn unused(&self) -> String {
        format!("{}:unused", self.hot)
    }

    pub(crate) fn admission_slots(&self, key: ClientKeyId) -> String {
        format!("{}:adm:{key}:slots", self.hot)
    }

    pub(crate) fn admission_rpm(&self, key: ClientKeyId) -> String {
        format!("{}:adm:{key}:rpm", self.hot)
    }

    /// Hash `tokens`, `cost` (nano-USD): what the key's finished requests spent on one UTC day
    /// (days since the epoch).
    pub(crate) fn spend_day(&self, key: ClientKeyId, day: i32) -> String {
        format!("{}:adm:{key}:spend:d:{day}", self.hot)
    }

    /// Hash `tokens`, `cost` (nano-USD) for one UTC month (months since 1970-01).
    pub(crate) fn spend_month(&self, key: ClientKeyId, month: i32) -> String {
        format!("{}:adm:{key}:spend:m:{month}", self.hot)
    }

    /// Hash: `fence`, `last_start`, `cool_until`.
    pub(crate) fn account(&self, account: AccountId) -> String {
        format!("{}:acct:{account}", self.hot)
    }

    /// Sorted set: fencing token -> slot expiry (ms).
    pub(crate) fn account_slots(&self, account: AccountId) -> String {
        format!("{}:acct:{account}:slots", self.hot)
    }

    /// Sorted set: model -> exclusion end (ms).
    pub(crate) fn account_exclusions(&self, account: AccountId) -> String {
        format!("{}:acct:{account}:excl", self.hot)
    }

    /// String, PX = the slot TTL: present while the boot's heartbeat is live.
    pub(crate) fn boot_alive(&self, boot: BootId) -> String {
        format!("{}:boot:{boot}", self.hot)
    }

    /// Sorted set: `<slots zset key>|<member>` -> slot expiry (ms), every slot the boot was
    /// granted (what a successor frees when it releases the boot).
    pub(crate) fn boot_slots(&self, boot: BootId) -> String {
        format!("{}:boot:{boot}:slots", self.hot)
    }

    /// String: the current boot of a replica (its successor's start reads the predecessor).
    pub(crate) fn replica(&self, replica: &ReplicaName) -> String {
        format!("{}:replica:{replica}", self.hot)
    }

    pub(crate) fn affinity(&self, key: &AffinityKey) -> String {
        format!("{}:aff:{}", self.hot, key.to_hex())
    }

    pub(crate) fn circuit(&self, provider: ProviderKind) -> String {
        format!("{}:circuit:{provider}", self.hot)
    }

    /// The response id is opaque bytes of any length: the key holds its SHA-256.
    pub(crate) fn pin(&self, response_id: &[u8]) -> String {
        format!("{}:pin:{{{}}}", self.prefix, hex(&Sha256::digest(response_id)))
    }

    /// A continuation transcript (the key is already a digest of client key and response id).
    pub(crate) fn transcript(&self, key: &TranscriptKey) -> String {
        format!("{}:transcript:{{{}}}", self.prefix, key.to_hex())
    }

    pub(crate) fn oauth_flow(&self, key: &OAuthFlowKey) -> String {
        format!("{}:oauth:v1:{}:{{{}}}", self.prefix, key.provider, key.to_hex())
    }

    pub(crate) fn lease(&self, name: &str) -> Result<String, CoordinationError> {
        Ok(format!("{}:lease:{{{}}}", self.prefix, checked_name(name)?))
    }

    pub(crate) fn lease_fence(&self, name: &str) -> Result<String, CoordinationError> {
        Ok(format!("{}:lease:{{{}}}:fence", self.prefix, checked_name(name)?))
    }

    /// The period index is appended by the script (same tag as the fence key).
    pub(crate) fn period_base(&self, task: &str) -> Result<String, CoordinationError> {
        Ok(format!("{}:lease:{{{}}}:period:", self.prefix, checked_name(task)?))
    }

    pub(crate) fn changes_channel(&self) -> String {
        format!("{}:changes", self.prefix)
    }
}

fn checked_name(name: &str) -> Result<&str, CoordinationError> {
    let valid = !name.is_empty()
        && name.len() <= 200
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
    if valid {
        Ok(name)
    } else {
        Err(CoordinationError::InvalidInput(format!("lease name {name:?} must be [A-Za-z0-9._:-]{{1,200}}")))
    }
}
