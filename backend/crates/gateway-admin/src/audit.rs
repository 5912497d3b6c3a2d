//! The admin audit trail: one redacted `admin_audit_events` row per committed unit of work,
//! hash-chained so a later verification can detect edited or removed rows.

pub mod chain;
pub mod redaction;

use serde_json::Value;
use time::OffsetDateTime;

use gateway_core::domain::ConfigRevision;

use crate::admin_user::AdminUserId;

pub use chain::{AuditChainLink, audit_row_hash, canonical_json};
pub use redaction::redact_details;

/// Who did it. `name` is a snapshot (the user may be renamed or deleted later); automation
/// without a user is e.g. `cli` or `bootstrap`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditActor {
    pub user_id: Option<AdminUserId>,
    pub name: String,
}

/// What a unit of work records when it commits.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEntry {
    pub actor: AuditActor,
    /// Dotted snake_case, e.g. `client_key.update`.
    pub action: String,
    /// snake_case, e.g. `client_key`.
    pub target_kind: String,
    pub target_id: Option<String>,
    /// A JSON object, already redacted (see [`AuditEntry::new`]).
    pub details: Value,
}

impl AuditEntry {
    /// Builds an entry; `details` is passed through [`redact_details`] so a secret that slipped
    /// into it is replaced by `"[REDACTED]"` before it can reach the database.
    pub fn new(
        actor: AuditActor,
        action: impl Into<String>,
        target_kind: impl Into<String>,
        target_id: Option<String>,
        details: Value,
    ) -> Self {
        Self {
            actor,
            action: action.into(),
            target_kind: target_kind.into(),
            target_id,
            details: redact_details(details),
        }
    }
}

/// A stored audit row.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEvent {
    pub id: i64,
    pub occurred_at: OffsetDateTime,
    pub actor: AuditActor,
    pub action: String,
    pub target_kind: String,
    pub target_id: Option<String>,
    pub details: Value,
    /// The global revision after the change.
    pub config_revision: ConfigRevision,
    pub prev_hash: Option<[u8; 32]>,
    pub row_hash: [u8; 32],
}

impl AuditEvent {
    /// Recomputes the row hash from the stored facts (for chain verification).
    pub fn expected_hash(&self) -> [u8; 32] {
        audit_row_hash(&AuditChainLink {
            prev_hash: self.prev_hash.as_ref(),
            occurred_at: self.occurred_at,
            actor_user_id: self.actor.user_id,
            actor_name: &self.actor.name,
            action: &self.action,
            target_kind: &self.target_kind,
            target_id: self.target_id.as_deref(),
            details: &self.details,
            config_revision: self.config_revision,
        })
    }
}
