//! The audit hash chain: `row_hash = SHA-256(encoding(prev_hash, facts))`.
//!
//! Encoding (version 1): the ASCII tag `switchboard.audit.v1`, then each field as one presence
//! byte (`0` absent, `1` present) followed, when present, by a 4-byte big-endian length and the
//! bytes. Fields in order: prev_hash, occurred_at (unix microseconds, decimal), actor_user_id
//! (decimal), actor_name, action, target_kind, target_id, details (canonical JSON: object keys
//! sorted, no whitespace), config_revision (decimal).

use serde_json::Value;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use gateway_core::domain::ConfigRevision;

use crate::admin_user::AdminUserId;

const TAG: &[u8] = b"switchboard.audit.v1";

/// The facts of one row that the hash covers.
#[derive(Debug, Clone, Copy)]
pub struct AuditChainLink<'a> {
    pub prev_hash: Option<&'a [u8; 32]>,
    /// Stored with microsecond precision; the hash uses whole microseconds.
    pub occurred_at: OffsetDateTime,
    pub actor_user_id: Option<AdminUserId>,
    pub actor_name: &'a str,
    pub action: &'a str,
    pub target_kind: &'a str,
    pub target_id: Option<&'a str>,
    pub details: &'a Value,
    pub config_revision: ConfigRevision,
}

pub fn audit_row_hash(link: &AuditChainLink<'_>) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(TAG);
    let micros = link.occurred_at.unix_timestamp_nanos() / 1_000;
    let fields: [Option<Vec<u8>>; 9] = [
        link.prev_hash.map(|h| h.to_vec()),
        Some(micros.to_string().into_bytes()),
        link.actor_user_id.map(|id| id.0.to_string().into_bytes()),
        Some(link.actor_name.as_bytes().to_vec()),
        Some(link.action.as_bytes().to_vec()),
        Some(link.target_kind.as_bytes().to_vec()),
        link.target_id.map(|t| t.as_bytes().to_vec()),
        Some(canonical_json(link.details).into_bytes()),
        Some(link.config_revision.0.to_string().into_bytes()),
    ];
    for field in fields {
        match field {
            None => hasher.update([0u8]),
            Some(bytes) => {
                hasher.update([1u8]);
                let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
                hasher.update(len.to_be_bytes());
                hasher.update(&bytes);
            }
        }
    }
    hasher.finalize().into()
}

/// JSON text with object keys sorted at every level and no whitespace, so the same value read
/// back from JSONB (which reorders keys) hashes the same.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, inner)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(inner, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, inner) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(inner, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}
