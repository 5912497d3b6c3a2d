//! Reading the alert webhooks and rules stored by the admin API (writes go through the
//! [`AdminTransaction`](crate::ports::AdminTransaction)).

use async_trait::async_trait;

use gateway_core::ports::StorageError;

use crate::alert_settings::{AlertRule, AlertWebhookId, StoredWebhook};
use crate::alerting::Webhook;

#[async_trait]
pub trait AlertSettings: Send + Sync {
    /// Every stored webhook, by id.
    async fn list_alert_webhooks(&self) -> Result<Vec<StoredWebhook>, StorageError>;
    async fn get_alert_webhook(&self, id: AlertWebhookId) -> Result<StoredWebhook, StorageError>;
    /// One webhook with its opened secret (enabled or not): what a test delivery posts to.
    async fn alert_webhook_target(&self, id: AlertWebhookId) -> Result<Webhook, StorageError>;
    /// The enabled webhooks with their opened secrets, by id: where alerts go. A secret that
    /// does not open (another master key) leaves its webhook out, with a warning.
    async fn enabled_alert_webhooks(&self) -> Result<Vec<Webhook>, StorageError>;
    /// One rule per alert kind (the stored ones; a kind without a row has its default).
    async fn list_alert_rules(&self) -> Result<Vec<AlertRule>, StorageError>;
}
