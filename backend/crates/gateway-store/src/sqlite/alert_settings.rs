//! `AlertSettings` (its one body for both dialects: `sql_shared::alert_reads`) and the alert
//! mutations of the admin unit of work (`alert_webhooks`, `alert_rules`) on SQLite; the row mapping
//! is shared with PostgreSQL (`rows::alert_settings`).

use sqlx::SqliteConnection;

use gateway_admin::alert_settings::{AlertRule, AlertWebhookId, AlertWebhookWrite};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::column_values::int4;
use crate::postgres::row_presence::found;
use crate::rows::alert_settings::{kinds_json, seal_secret};
use crate::sql_transaction::missing_key;
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::{json_text, now_micros};

crate::sql_shared::alert_reads::sql_alert_settings!(SqliteStore, reader);

pub(crate) async fn create_webhook(
    conn: &mut SqliteConnection,
    keyring: Option<&Keyring>,
    webhook: &AlertWebhookWrite,
) -> Result<AlertWebhookId, StorageError> {
    let keyring = keyring.ok_or_else(missing_key)?;
    let secret =
        webhook.secret.as_ref().ok_or_else(|| StorageError::Internal("a new webhook needs a secret".into()))?;
    let sealed = seal_secret(keyring, secret)?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO alert_webhooks (name, url, secret_ciphertext, secret_key_id, kinds, enabled, created_at, \
         updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id",
    )
    .bind(&webhook.name)
    .bind(&webhook.url)
    .bind(sealed.ciphertext)
    .bind(sealed.key_id)
    .bind(json_text(&kinds_json(&webhook.kinds)))
    .bind(webhook.enabled)
    .bind(now_micros())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(AlertWebhookId(id))
}

pub(crate) async fn update_webhook(
    conn: &mut SqliteConnection,
    keyring: Option<&Keyring>,
    id: AlertWebhookId,
    webhook: &AlertWebhookWrite,
) -> Result<(), StorageError> {
    let sealed = match &webhook.secret {
        Some(secret) => Some(seal_secret(keyring.ok_or_else(missing_key)?, secret)?),
        None => None,
    };
    let (ciphertext, key_id) = sealed.map(|s| (s.ciphertext, s.key_id)).unzip();
    let done = sqlx::query(
        "UPDATE alert_webhooks SET name = $2, url = $3, kinds = $4, enabled = $5, \
         secret_ciphertext = COALESCE($6, secret_ciphertext), secret_key_id = COALESCE($7, secret_key_id), \
         updated_at = $8 WHERE id = $1",
    )
    .bind(id.0)
    .bind(&webhook.name)
    .bind(&webhook.url)
    .bind(json_text(&kinds_json(&webhook.kinds)))
    .bind(webhook.enabled)
    .bind(ciphertext)
    .bind(key_id)
    .bind(now_micros())
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    found(done.rows_affected(), "alert webhook", id)
}

pub(crate) async fn delete_webhook(conn: &mut SqliteConnection, id: AlertWebhookId) -> Result<(), StorageError> {
    let done = sqlx::query("DELETE FROM alert_webhooks WHERE id = $1")
        .bind(id.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    found(done.rows_affected(), "alert webhook", id)
}

pub(crate) async fn update_rule(conn: &mut SqliteConnection, rule: &AlertRule) -> Result<(), StorageError> {
    sqlx::query(
        "INSERT INTO alert_rules (kind, enabled, threshold_percent, window_seconds, min_requests, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (kind) DO UPDATE SET enabled = EXCLUDED.enabled, \
         threshold_percent = EXCLUDED.threshold_percent, window_seconds = EXCLUDED.window_seconds, \
         min_requests = EXCLUDED.min_requests, updated_at = EXCLUDED.updated_at",
    )
    .bind(rule.kind.as_str())
    .bind(rule.enabled)
    .bind(rule.threshold_percent)
    .bind(int4(rule.window_seconds, "alert_rules.window_seconds")?)
    .bind(int4(rule.min_requests, "alert_rules.min_requests")?)
    .bind(now_micros())
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(())
}
