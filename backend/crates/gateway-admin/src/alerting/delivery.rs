//! One alert to one webhook: up to `max_attempts` POSTs, waiting `initial_backoff`, then twice
//! as long each time (capped at `max_backoff`) after a failure worth retrying (no answer, 408,
//! 429, 5xx). Another 4xx ends the delivery: the receiver refuses it. Every attempt is recorded
//! as an `alert.delivery` ops event; the signature is recomputed per attempt (fresh timestamp).

use std::time::Duration;

use gateway_core::alerts::{Alert, WebhookRequest, WebhookTransport};
use gateway_core::domain::{OpsEvent, OpsLevel};
use gateway_core::observation::{Observation, ObservationQueue};
use serde_json::json;
use std::sync::Arc;
use time::OffsetDateTime;

use super::Webhook;
use super::signature::{SIGNATURE_HEADER, sign};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryPolicy {
    pub max_attempts: u32,
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// Per POST.
    pub timeout: Duration,
}

impl Default for DeliveryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(60),
            timeout: Duration::from_secs(10),
        }
    }
}

impl DeliveryPolicy {
    /// The wait after failed attempt `attempt` (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.saturating_sub(1)).unwrap_or(u32::MAX);
        self.initial_backoff.saturating_mul(factor).min(self.max_backoff)
    }
}

/// What one attempt came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptResult {
    Delivered,
    Retry,
    Refused,
}

pub fn judge(answer: &Result<u16, gateway_core::alerts::WebhookError>) -> AttemptResult {
    match answer {
        Ok(200..=299) => AttemptResult::Delivered,
        Ok(408 | 429 | 500..=599) | Err(_) => AttemptResult::Retry,
        Ok(_) => AttemptResult::Refused,
    }
}

pub struct Delivery {
    pub webhook: Webhook,
    pub alert: Alert,
    pub transport: Arc<dyn WebhookTransport>,
    pub policy: DeliveryPolicy,
    pub records: ObservationQueue,
}

impl Delivery {
    pub async fn run(self) {
        let id = uuid::Uuid::now_v7().to_string();
        let body = super::payload::body(&id, &self.alert);
        for attempt in 1..=self.policy.max_attempts.max(1) {
            let timestamp = OffsetDateTime::now_utc().unix_timestamp();
            let request = WebhookRequest {
                url: self.webhook.url.clone(),
                headers: vec![
                    ("content-type".to_owned(), "application/json".to_owned()),
                    (SIGNATURE_HEADER.to_owned(), sign(&self.webhook.secret, timestamp, &body)),
                    ("x-switchboard-event".to_owned(), self.alert.kind.as_str().to_owned()),
                    ("x-switchboard-delivery".to_owned(), id.clone()),
                ],
                body: body.clone(),
                timeout: self.policy.timeout,
            };
            let answer = self.transport.post(request).await;
            let mut result = judge(&answer);
            if result == AttemptResult::Retry && attempt == self.policy.max_attempts.max(1) {
                result = AttemptResult::Refused;
            }
            self.record(&id, attempt, &answer, result);
            if result != AttemptResult::Retry {
                return;
            }
            tokio::time::sleep(self.policy.backoff(attempt)).await;
        }
    }

    fn record(
        &self,
        id: &str,
        attempt: u32,
        answer: &Result<u16, gateway_core::alerts::WebhookError>,
        result: AttemptResult,
    ) {
        let outcome = match result {
            AttemptResult::Delivered => "delivered",
            AttemptResult::Retry => "retrying",
            AttemptResult::Refused => "failed",
        };
        let level = if result == AttemptResult::Delivered { OpsLevel::Info } else { OpsLevel::Warn };
        let (status, error) = match answer {
            Ok(status) => (Some(*status), None),
            Err(error) => (None, Some(error.to_string())),
        };
        self.records.push(Observation::Ops(Box::new(OpsEvent {
            occurred_at: OffsetDateTime::now_utc(),
            level,
            kind: "alert.delivery".to_owned(),
            provider: self.alert.provider,
            account_id: self.alert.account_id,
            request_id: None,
            message: format!(
                "alert {} to webhook {}: {outcome} (attempt {attempt})",
                self.alert.kind, self.webhook.name
            ),
            details: json!({
                "deliveryId": id,
                "webhook": self.webhook.name,
                "alertKind": self.alert.kind.as_str(),
                "attempt": attempt,
                "status": status,
                "outcome": outcome,
                "error": error,
            }),
        })));
    }
}
