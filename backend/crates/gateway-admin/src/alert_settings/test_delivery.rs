//! "Send test": one signed POST of a `type: "test"` body to a webhook, answered with what the
//! receiver said and recorded like any delivery attempt (`alert.delivery`, `alertKind: test`).
//! No retry: the admin sees the first answer.

use std::time::Duration;

use gateway_core::alerts::{WebhookRequest, WebhookTransport};
use gateway_core::domain::{OpsEvent, OpsLevel};
use gateway_core::observation::{Observation, ObservationQueue};
use serde_json::json;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::alerting::Webhook;
use crate::alerting::delivery::{AttemptResult, judge};
use crate::alerting::signature::{SIGNATURE_HEADER, sign};

/// What the test POST came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestDelivery {
    pub delivery_id: String,
    /// The receiver's HTTP status, when it answered.
    pub status: Option<u16>,
    /// `delivered` (2xx) or `failed`.
    pub outcome: &'static str,
    /// Why there was no answer (never the URL).
    pub error: Option<String>,
}

/// `{"id", "type": "test", "kind": "test", "occurredAt", "message"}`.
fn body(id: &str, now: OffsetDateTime) -> Vec<u8> {
    let value = json!({
        "id": id,
        "type": "test",
        "kind": "test",
        "occurredAt": now.format(&Rfc3339).unwrap_or_default(),
        "message": "A test delivery from Switchboard.",
    });
    serde_json::to_vec(&value).unwrap_or_default()
}

pub async fn send_test(
    webhook: &Webhook,
    transport: &dyn WebhookTransport,
    records: &ObservationQueue,
    timeout: Duration,
) -> TestDelivery {
    let id = uuid::Uuid::now_v7().to_string();
    let now = OffsetDateTime::now_utc();
    let body = body(&id, now);
    let request = WebhookRequest {
        url: webhook.url.clone(),
        headers: vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            (SIGNATURE_HEADER.to_owned(), sign(&webhook.secret, now.unix_timestamp(), &body)),
            ("x-switchboard-event".to_owned(), "test".to_owned()),
            ("x-switchboard-delivery".to_owned(), id.clone()),
        ],
        body,
        timeout,
    };
    let answer = transport.post(request).await;
    let outcome = if judge(&answer) == AttemptResult::Delivered { "delivered" } else { "failed" };
    let (status, error) = match &answer {
        Ok(status) => (Some(*status), None),
        Err(error) => (None, Some(error.to_string())),
    };
    records.push(Observation::Ops(Box::new(OpsEvent {
        occurred_at: now,
        level: if outcome == "delivered" { OpsLevel::Info } else { OpsLevel::Warn },
        kind: "alert.delivery".to_owned(),
        provider: None,
        account_id: None,
        request_id: None,
        message: format!("test delivery to webhook {}: {outcome}", webhook.name),
        details: json!({
            "deliveryId": id,
            "webhook": webhook.name,
            "alertKind": "test",
            "attempt": 1,
            "status": status,
            "outcome": outcome,
            "error": error,
        }),
    })));
    TestDelivery { delivery_id: id, status, outcome, error }
}
