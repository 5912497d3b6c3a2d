//! Alert settings: the webhooks (their secrets sealed) and the rules — [`AlertSettings`] and the
//! mutations of the admin unit of work. Rows are mapped by `rows::alert_settings`.

use async_trait::async_trait;

use gateway_admin::alert_settings::{AlertRule, AlertWebhookId, AlertWebhookWrite, StoredWebhook};
use gateway_admin::alerting::Webhook;
use gateway_admin::ports::AlertSettings;
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::column_values::int4;
use crate::row_columns::RowColumns;
use crate::rows::alert_settings::{
    complete_rules, kinds_json, open_targets, rule_from_row, seal_secret, target_from_row, webhook_from_row,
};
use crate::sql::links::found;
use crate::sql::store::SqlStore;
use crate::sql::store::missing_key;
use crate::sql::{Arg, Dialect, Sql, Statement};

const ALL_WEBHOOKS: Sql =
    Sql::same("SELECT id, name, url, kinds, enabled, created_at, updated_at FROM alert_webhooks ORDER BY id");
const ONE_WEBHOOK: Sql =
    Sql::same("SELECT id, name, url, kinds, enabled, created_at, updated_at FROM alert_webhooks WHERE id = $1");
const ONE_TARGET: Sql =
    Sql::same("SELECT id, name, url, kinds, secret_ciphertext, secret_key_id FROM alert_webhooks WHERE id = $1");
const ENABLED_TARGETS: Sql = Sql::same(
    "SELECT id, name, url, kinds, secret_ciphertext, secret_key_id FROM alert_webhooks WHERE enabled ORDER BY id",
);
const ALL_RULES: Sql =
    Sql::same("SELECT kind, enabled, threshold_percent, window_seconds, min_requests FROM alert_rules ORDER BY kind");
const INSERT_WEBHOOK: Sql = Sql::same(
    "INSERT INTO alert_webhooks (name, url, secret_ciphertext, secret_key_id, kinds, enabled, created_at, \
     updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id",
);
const UPDATE_WEBHOOK: Sql = Sql::same(
    "UPDATE alert_webhooks SET name = $2, url = $3, kinds = $4, enabled = $5, \
     secret_ciphertext = COALESCE($6, secret_ciphertext), secret_key_id = COALESCE($7, secret_key_id), \
     updated_at = $8 WHERE id = $1",
);
const DELETE_WEBHOOK: Sql = Sql::same("DELETE FROM alert_webhooks WHERE id = $1");
const UPSERT_RULE: Sql = Sql::same(
    "INSERT INTO alert_rules (kind, enabled, threshold_percent, window_seconds, min_requests, updated_at) \
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (kind) DO UPDATE SET enabled = EXCLUDED.enabled, \
     threshold_percent = EXCLUDED.threshold_percent, window_seconds = EXCLUDED.window_seconds, \
     min_requests = EXCLUDED.min_requests, updated_at = EXCLUDED.updated_at",
);

#[async_trait]
impl<D: Dialect> AlertSettings for SqlStore<D> {
    async fn list_alert_webhooks(&self) -> Result<Vec<StoredWebhook>, StorageError> {
        let rows = Statement::<D>::new(&ALL_WEBHOOKS).fetch_all(self.reader()).await?;
        rows.iter().map(webhook_from_row).collect()
    }

    async fn get_alert_webhook(&self, id: AlertWebhookId) -> Result<StoredWebhook, StorageError> {
        let row = Statement::<D>::new(&ONE_WEBHOOK)
            .bind(id.0)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| StorageError::not_found("alert webhook", id))?;
        webhook_from_row(&row)
    }

    async fn alert_webhook_target(&self, id: AlertWebhookId) -> Result<Webhook, StorageError> {
        let row = Statement::<D>::new(&ONE_TARGET)
            .bind(id.0)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| StorageError::not_found("alert webhook", id))?;
        target_from_row(&row, self.keyring()?)
    }

    async fn enabled_alert_webhooks(&self) -> Result<Vec<Webhook>, StorageError> {
        let rows = Statement::<D>::new(&ENABLED_TARGETS).fetch_all(self.reader()).await?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        Ok(open_targets(&rows, self.keyring()?))
    }

    async fn list_alert_rules(&self) -> Result<Vec<AlertRule>, StorageError> {
        let rows = Statement::<D>::new(&ALL_RULES).fetch_all(self.reader()).await?;
        Ok(complete_rules(rows.iter().map(rule_from_row).collect::<Result<_, _>>()?))
    }
}

pub(crate) async fn create_webhook<D: Dialect>(
    conn: &mut D::Connection,
    keyring: Option<&Keyring>,
    webhook: &AlertWebhookWrite,
) -> Result<AlertWebhookId, StorageError> {
    let keyring = keyring.ok_or_else(missing_key)?;
    let secret =
        webhook.secret.as_ref().ok_or_else(|| StorageError::Internal("a new webhook needs a secret".into()))?;
    let sealed = seal_secret(keyring, secret)?;
    let row = Statement::<D>::new(&INSERT_WEBHOOK)
        .bind(&webhook.name)
        .bind(&webhook.url)
        .bind(sealed.ciphertext)
        .bind(sealed.key_id)
        .bind(Arg::json(Some(kinds_json(&webhook.kinds))))
        .bind(webhook.enabled)
        .bind(time::OffsetDateTime::now_utc())
        .fetch_one(conn)
        .await?;
    Ok(AlertWebhookId(row.col("id")?))
}

pub(crate) async fn update_webhook<D: Dialect>(
    conn: &mut D::Connection,
    keyring: Option<&Keyring>,
    id: AlertWebhookId,
    webhook: &AlertWebhookWrite,
) -> Result<(), StorageError> {
    let sealed = match &webhook.secret {
        Some(secret) => Some(seal_secret(keyring.ok_or_else(missing_key)?, secret)?),
        None => None,
    };
    let (ciphertext, key_id) = sealed.map(|s| (s.ciphertext, s.key_id)).unzip();
    let touched = Statement::<D>::new(&UPDATE_WEBHOOK)
        .bind(id.0)
        .bind(&webhook.name)
        .bind(&webhook.url)
        .bind(Arg::json(Some(kinds_json(&webhook.kinds))))
        .bind(webhook.enabled)
        .bind(ciphertext)
        .bind(key_id)
        .bind(time::OffsetDateTime::now_utc())
        .execute(conn)
        .await?;
    found(touched, "alert webhook", id)
}

pub(crate) async fn delete_webhook<D: Dialect>(
    conn: &mut D::Connection,
    id: AlertWebhookId,
) -> Result<(), StorageError> {
    let touched = Statement::<D>::new(&DELETE_WEBHOOK).bind(id.0).execute(conn).await?;
    found(touched, "alert webhook", id)
}

pub(crate) async fn update_rule<D: Dialect>(conn: &mut D::Connection, rule: &AlertRule) -> Result<(), StorageError> {
    Statement::<D>::new(&UPSERT_RULE)
        .bind(rule.kind.as_str())
        .bind(rule.enabled)
        .bind(rule.threshold_percent)
        .bind(int4(rule.window_seconds, "alert_rules.window_seconds")?)
        .bind(int4(rule.min_requests, "alert_rules.min_requests")?)
        .bind(time::OffsetDateTime::now_utc())
        .execute(conn)
        .await?;
    Ok(())
}
