//! Alert webhooks (stored ones managed here, configured ones listed read-only) and rules;
//! a test delivery on demand.

use std::sync::Arc;

use crate::alert_settings::test_delivery::{TestDelivery, send_test};
use crate::alert_settings::{
    self, AlertRule, AlertWebhookId, AlertWebhookInput, StoredWebhook, create_webhook, update_webhook,
};
use crate::alerting::Webhook;
use crate::audit::AuditActor;
use crate::error::AdminError;
use crate::services::AlertPorts;
use crate::services::Mutations;
use crate::url_guard::UrlGuard;

pub struct AlertsService {
    uow: Mutations,
    url_guard: Arc<UrlGuard>,
    ports: AlertPorts,
}

impl AlertsService {
    pub fn new(uow: Mutations, url_guard: Arc<UrlGuard>, ports: AlertPorts) -> Self {
        Self { uow, url_guard, ports }
    }

    /// The names of the configured webhooks (a stored one may not take them).
    fn reserved(&self) -> Vec<String> {
        self.ports.configured.iter().map(|w| w.name.clone()).collect()
    }

    /// The webhooks of the configuration file (read-only), and the stored ones by id.
    pub async fn webhooks(&self) -> Result<(&[Webhook], Vec<StoredWebhook>), AdminError> {
        let stored = self.ports.settings.list_alert_webhooks().await?;
        Ok((&self.ports.configured, stored))
    }

    pub async fn webhook(&self, id: AlertWebhookId) -> Result<StoredWebhook, AdminError> {
        Ok(self.ports.settings.get_alert_webhook(id).await?)
    }

    /// Creates a webhook (URL checked by the SSRF guard; audited without the secret).
    pub async fn create_webhook(
        &self,
        actor: AuditActor,
        input: AlertWebhookInput,
    ) -> Result<StoredWebhook, AdminError> {
        let (settings, guard) = (self.ports.settings.as_ref(), &self.url_guard);
        create_webhook(self.uow.get(), settings, guard, &self.reserved(), actor, input).await
    }

    pub async fn update_webhook(
        &self,
        actor: AuditActor,
        id: AlertWebhookId,
        input: AlertWebhookInput,
    ) -> Result<StoredWebhook, AdminError> {
        let (settings, guard) = (self.ports.settings.as_ref(), &self.url_guard);
        update_webhook(self.uow.get(), settings, guard, &self.reserved(), actor, id, input).await
    }

    pub async fn delete_webhook(&self, actor: AuditActor, id: AlertWebhookId) -> Result<(), AdminError> {
        alert_settings::delete_webhook(self.uow.get(), actor, id).await
    }

    /// Sends one signed test POST now (enabled or not; no retry), recorded as an ops event.
    pub async fn test_webhook(&self, id: AlertWebhookId) -> Result<TestDelivery, AdminError> {
        let webhook = self.ports.settings.alert_webhook_target(id).await?;
        let p = &self.ports;
        Ok(send_test(&webhook, p.transport.as_ref(), &p.records, p.timeout).await)
    }

    pub async fn rules(&self) -> Result<Vec<AlertRule>, AdminError> {
        Ok(self.ports.settings.list_alert_rules().await?)
    }

    pub async fn update_rule(&self, actor: AuditActor, rule: AlertRule) -> Result<AlertRule, AdminError> {
        alert_settings::update_rule(self.uow.get(), actor, rule).await
    }
}
