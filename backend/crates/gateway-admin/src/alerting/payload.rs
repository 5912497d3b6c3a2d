//! The webhook body: one JSON object per alert.

use gateway_core::alerts::Alert;
use serde_json::json;
use time::format_description::well_known::Rfc3339;

/// `{"id", "type": "alert", "kind", "occurredAt", "provider", "accountId", "clientKeyId", "reason", "message"}`.
pub fn body(delivery_id: &str, alert: &Alert) -> Vec<u8> {
    let occurred_at = alert.occurred_at.format(&Rfc3339).unwrap_or_default();
    let value = json!({
        "id": delivery_id,
        "type": "alert",
        "kind": alert.kind.as_str(),
        "occurredAt": occurred_at,
        "provider": alert.provider.map(|p| p.as_str()),
        "accountId": alert.account_id.map(|a| a.0),
        "clientKeyId": alert.client_key_id.map(|k| k.0),
        "reason": alert.reason,
        "message": alert.message,
    });
    serde_json::to_vec(&value).unwrap_or_default()
}
