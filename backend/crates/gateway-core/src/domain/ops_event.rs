//! Redacted runtime events (`ops_events`): refresh failures, intermediate attempt failures,
//! stale-request recoveries. Messages and details never carry tokens or other tenants' bodies.

use time::OffsetDateTime;

use crate::closed_set;
use crate::domain::ids::{AccountId, RequestId};
use crate::domain::provider::ProviderKind;

closed_set!(
    OpsLevel as "ops event level" {
        Debug = "debug",
        Info = "info",
        Warn = "warn",
        Error = "error",
    }
);

#[derive(Debug, Clone, PartialEq)]
pub struct OpsEvent {
    pub occurred_at: OffsetDateTime,
    pub level: OpsLevel,
    /// Dotted snake_case, e.g. `credential.refresh_failed`.
    pub kind: String,
    pub provider: Option<ProviderKind>,
    pub account_id: Option<AccountId>,
    pub request_id: Option<RequestId>,
    pub message: String,
    /// A JSON object.
    pub details: serde_json::Value,
}
