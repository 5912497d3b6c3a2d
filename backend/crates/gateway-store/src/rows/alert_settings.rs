//! Mapping `alert_webhooks` and `alert_rules` rows, for both dialects, and opening a webhook's
//! sealed secret.

use gateway_admin::alert_settings::{AlertRule, AlertWebhookId, StoredWebhook};
use gateway_admin::alerting::Webhook;
use gateway_core::alerts::AlertKind;
use gateway_core::ports::StorageError;
use secrecy::{ExposeSecret, SecretString};

use crate::crypto::{Keyring, SealedSecret};
use crate::postgres::column_values::{closed, u32_of};
use crate::postgres::error_mapping::corrupt;
use crate::postgres::sealing::{ALERT_WEBHOOK_SECRET_CONTEXT, crypto_error};
use crate::row_columns::RowColumns;

fn kinds(row: &impl RowColumns) -> Result<Vec<AlertKind>, StorageError> {
    let value = row.json("kinds")?;
    let list = value.as_array().ok_or_else(|| corrupt("alert_webhooks.kinds", "not an array"))?;
    list.iter().map(|kind| closed(kind.as_str().unwrap_or_default(), "alert_webhooks.kinds")).collect()
}

pub(crate) fn kinds_json(kinds: &[AlertKind]) -> serde_json::Value {
    serde_json::Value::Array(kinds.iter().map(|k| serde_json::Value::from(k.as_str())).collect())
}

pub(crate) fn webhook_from_row(row: &impl RowColumns) -> Result<StoredWebhook, StorageError> {
    Ok(StoredWebhook {
        id: AlertWebhookId(row.col("id")?),
        name: row.col("name")?,
        url: row.col("url")?,
        kinds: kinds(row)?,
        enabled: row.col("enabled")?,
        created_at: row.ts("created_at")?,
        updated_at: row.ts("updated_at")?,
    })
}

/// The webhook with its secret opened under `keyring`.
pub(crate) fn target_from_row(row: &impl RowColumns, keyring: &Keyring) -> Result<Webhook, StorageError> {
    let sealed = SealedSecret { key_id: row.col("secret_key_id")?, ciphertext: row.col("secret_ciphertext")? };
    let secret = keyring.open(&sealed, ALERT_WEBHOOK_SECRET_CONTEXT).map_err(crypto_error)?;
    Ok(Webhook {
        name: row.col("name")?,
        url: row.col("url")?,
        secret: SecretString::from(secret.expose_secret().to_owned()),
        kinds: kinds(row)?,
    })
}

pub(crate) fn seal_secret(keyring: &Keyring, secret: &SecretString) -> Result<SealedSecret, StorageError> {
    keyring.seal(secret.expose_secret().as_bytes(), ALERT_WEBHOOK_SECRET_CONTEXT).map_err(crypto_error)
}

pub(crate) fn rule_from_row(row: &impl RowColumns) -> Result<AlertRule, StorageError> {
    Ok(AlertRule {
        kind: closed(row.col::<&str>("kind")?, "alert_rules.kind")?,
        enabled: row.col("enabled")?,
        threshold_percent: row.col("threshold_percent")?,
        window_seconds: u32_of(row.col("window_seconds")?, "alert_rules.window_seconds")?,
        min_requests: u32_of(row.col("min_requests")?, "alert_rules.min_requests")?,
    })
}

/// One rule per kind: the stored ones, defaults for the rest, in the order of [`AlertKind::ALL`].
pub(crate) fn complete_rules(stored: Vec<AlertRule>) -> Vec<AlertRule> {
    AlertKind::ALL
        .iter()
        .map(|kind| stored.iter().find(|r| r.kind == *kind).copied().unwrap_or_else(|| AlertRule::default_for(*kind)))
        .collect()
}

/// Opens every row; a row whose secret does not open is left out with a warning.
pub(crate) fn open_targets<R: RowColumns>(rows: &[R], keyring: &Keyring) -> Vec<Webhook> {
    rows.iter()
        .filter_map(|row| match target_from_row(row, keyring) {
            Ok(webhook) => Some(webhook),
            Err(error) => {
                let id = row.col::<i64>("id").unwrap_or_default();
                tracing::warn!(webhook_id = id, %error, "alert webhook left out: its secret cannot be opened");
                None
            }
        })
        .collect()
}
