//! Alerts: the queue the engine and the refresher raise into, the webhooks from `alerts.webhooks`
//! (each URL checked by the admin SSRF guard before serving) plus the ones the admin API stores
//! (checked when saved), the HTTP transport that checks the addresses it connects to again, and
//! the dispatcher worker. The admin API gets the same transport for its test deliveries.

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use gateway_admin::alerting::{AlertDispatcher, DeliveryPolicy, Webhook};
use gateway_admin::ports::AlertSettings;
use gateway_admin::url_guard::{UrlGuard, UrlPolicy};
use gateway_api::AlertPorts;
use gateway_core::alerts::{AlertKind, AlertSink, WebhookTransport, alert_queue};
use gateway_core::observation::ObservationQueue;
use gateway_host::webhook_client::HttpWebhookTransport;
use gateway_host::{ConfigError, FnWorker, WorkerRuntime};
use gateway_store::dns::SystemResolver;

use super::StartError;

/// Raised alerts waiting for the dispatcher; beyond it they are dropped and counted.
const ALERT_QUEUE_CAPACITY: usize = 256;

/// The configured webhooks, each URL through the SSRF guard.
async fn configured_webhooks(config: &Config) -> Result<Vec<Webhook>, StartError> {
    let policy = UrlPolicy { allow_private: config.admin.allow_private_urls };
    let guard = UrlGuard::new(Arc::new(SystemResolver), policy);
    let mut webhooks = Vec::new();
    for (index, webhook) in config.alerts.webhooks.iter().enumerate() {
        guard.check(&webhook.url).await.map_err(|refusal| {
            StartError::Config(ConfigError::invalid(&format!("alerts.webhooks[{index}].url"), &refusal.to_string()))
        })?;
        webhooks.push(Webhook {
            name: webhook.name.clone(),
            url: webhook.url.clone(),
            secret: webhook.secret.clone().into(),
            kinds: webhook.kinds.iter().filter_map(|kind| kind.parse::<AlertKind>().ok()).collect(),
        });
    }
    Ok(webhooks)
}

/// The sink to hand to the engine and the refresher, and the admin API's alert ports.
pub async fn build(
    config: &Config,
    records: ObservationQueue,
    stored: Arc<dyn AlertSettings>,
    workers: &mut WorkerRuntime,
) -> Result<(AlertSink, AlertPorts), StartError> {
    let alerts = &config.alerts;
    let webhooks = configured_webhooks(config).await?;
    let transport: Arc<dyn WebhookTransport> =
        Arc::new(HttpWebhookTransport::new(super::outbound::webhook_client(config)?));
    let delivery = DeliveryPolicy {
        max_attempts: alerts.max_attempts,
        initial_backoff: Duration::from_millis(alerts.backoff_initial_ms),
        max_backoff: Duration::from_millis(alerts.backoff_max_ms),
        timeout: Duration::from_secs(alerts.timeout_seconds),
    };
    let ports = AlertPorts {
        settings: stored.clone(),
        configured: webhooks.clone(),
        transport: transport.clone(),
        records: records.clone(),
        timeout: delivery.timeout,
    };
    let repeat_after = Duration::from_secs(alerts.repeat_after_seconds);
    let (sink, receiver) = alert_queue(ALERT_QUEUE_CAPACITY);
    let parts = std::sync::Mutex::new(Some((webhooks, transport, receiver)));
    workers
        .register(FnWorker::daemon("alert-dispatch", move |ctx| {
            let taken = parts.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            let (records, stored) = (records.clone(), stored.clone());
            Box::pin(async move {
                match taken {
                    Some((webhooks, transport, receiver)) => {
                        AlertDispatcher::new(webhooks, transport, delivery, records, repeat_after)
                            .with_stored(stored)
                            .run(receiver, ctx.token().clone())
                            .await
                    }
                    // Gone only if a previous run panicked; nothing left to deliver.
                    None => ctx.stopping().await,
                }
                Ok(())
            })
        }))
        .map_err(StartError::Wiring)?;
    Ok((sink, ports))
}
