//! [`AlertSettings`] and the alert mutations: webhooks round-trip with a sealed, write-only
//! secret, names are unique case-insensitively, rules start at the migration's defaults.

use gateway_admin::alert_settings::{AlertRule, AlertWebhookId, AlertWebhookWrite};
use gateway_admin::ports::{AlertSettings, UnitOfWork};
use gateway_core::alerts::AlertKind;
use gateway_core::ports::{StorageError, StorageErrorKind};
use gateway_store::crypto::{Keyring, MasterKey};
use secrecy::{ExposeSecret, SecretString};

use crate::storage_contract::fixtures::{Harness, audit};

fn write(name: &str, secret: Option<&str>) -> AlertWebhookWrite {
    AlertWebhookWrite {
        name: name.to_owned(),
        url: "https://hooks.example.com/switchboard?token=t".to_owned(),
        kinds: vec![AlertKind::AccountBanned, AlertKind::ErrorRate],
        enabled: true,
        secret: secret.map(SecretString::from),
    }
}

pub async fn alert_webhooks_keep_their_secret_sealed_and_rules_start_at_defaults(
    h: impl Harness,
) -> anyhow::Result<()> {
    let store = h.store();
    let rules = store.list_alert_rules().await?;
    assert_eq!(rules.len(), AlertKind::ALL.len());
    let error_rate = rules.iter().find(|r| r.kind == AlertKind::ErrorRate).expect("error_rate rule");
    assert_eq!(*error_rate, AlertRule::default_for(AlertKind::ErrorRate));
    assert!(rules.iter().all(|r| r.enabled));

    let mut tx = store.begin().await?;
    let id = tx.create_alert_webhook(&write("Ops", Some("whsec-0123456789abcdef"))).await?;
    tx.commit(audit("alert_webhook.create", "alert_webhook")).await?;
    let stored = store.get_alert_webhook(id).await?;
    assert_eq!((stored.name.as_str(), stored.kinds.len(), stored.enabled), ("Ops", 2, true));
    assert_eq!(store.list_alert_webhooks().await?, vec![stored.clone()]);
    let target = store.alert_webhook_target(id).await?;
    assert_eq!((target.name.as_str(), target.secret.expose_secret()), ("Ops", "whsec-0123456789abcdef"));

    // Another name in another case is the same name.
    let mut tx = store.begin().await?;
    let err = tx.create_alert_webhook(&write("ops", Some("whsec-another-secret-00"))).await.expect_err("unique");
    assert!(
        matches!(&err, StorageError::Conflict { constraint } if constraint == "alert_webhooks_name_key"),
        "{err:?}"
    );
    drop(tx);

    // An update without a secret keeps it; disabling takes it out of the delivery list.
    let mut tx = store.begin().await?;
    let mut renamed = write("Pager", None);
    renamed.enabled = false;
    renamed.kinds = vec![];
    tx.update_alert_webhook(id, &renamed).await?;
    tx.commit(audit("alert_webhook.update", "alert_webhook")).await?;
    assert_eq!(store.alert_webhook_target(id).await?.secret.expose_secret(), "whsec-0123456789abcdef");
    assert!(store.enabled_alert_webhooks().await?.is_empty());
    let mut tx = store.begin().await?;
    renamed.enabled = true;
    renamed.secret = Some(SecretString::from("whsec-rotated-0123456789"));
    tx.update_alert_webhook(id, &renamed).await?;
    tx.commit(audit("alert_webhook.update", "alert_webhook")).await?;
    let enabled = store.enabled_alert_webhooks().await?;
    assert_eq!(enabled.len(), 1);
    assert_eq!((enabled[0].name.as_str(), enabled[0].secret.expose_secret()), ("Pager", "whsec-rotated-0123456789"));
    assert!(enabled[0].kinds.is_empty(), "no kinds: every kind");

    // Under another master key the secret does not open: left out of deliveries, an error for a test.
    let other = Keyring::from_config(MasterKey::generate("k-other")?.to_config_value().expose_secret(), &[])?;
    let foreign = h.reopen(Some(other)).await?;
    assert!(foreign.enabled_alert_webhooks().await?.is_empty());
    assert!(foreign.alert_webhook_target(id).await.is_err());
    h.close(foreign).await;

    // Rules: replaced whole.
    let mut tx = store.begin().await?;
    let rule = AlertRule {
        kind: AlertKind::ErrorRate,
        enabled: false,
        threshold_percent: 12.5,
        window_seconds: 600,
        min_requests: 5,
    };
    tx.update_alert_rule(&rule).await?;
    tx.commit(audit("alert_rule.update", "alert_rule")).await?;
    let rules = store.list_alert_rules().await?;
    assert_eq!(rules.iter().find(|r| r.kind == AlertKind::ErrorRate), Some(&rule));
    assert_eq!(rules.len(), AlertKind::ALL.len());

    // Delete; a missing webhook is NotFound everywhere.
    let mut tx = store.begin().await?;
    tx.delete_alert_webhook(id).await?;
    tx.commit(audit("alert_webhook.delete", "alert_webhook")).await?;
    assert_eq!(store.get_alert_webhook(id).await.map_err(|e| e.kind()).err(), Some(StorageErrorKind::NotFound));
    let mut tx = store.begin().await?;
    let missing = AlertWebhookId(424_242);
    assert_eq!(tx.delete_alert_webhook(missing).await.map_err(|e| e.kind()).err(), Some(StorageErrorKind::NotFound));
    assert_eq!(
        tx.update_alert_webhook(missing, &write("x", None)).await.map_err(|e| e.kind()).err(),
        Some(StorageErrorKind::NotFound)
    );
    drop(tx);
    h.finish().await
}
