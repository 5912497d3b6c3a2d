//! The one body of [`AlertSettings`](gateway_admin::ports::AlertSettings) for both SQL adapters:
//! the statements are the same text on both dialects, the rows are mapped by
//! `rows::alert_settings`; each adapter invokes [`sql_alert_settings!`] with its store type and
//! the method returning its read pool, and `storage_error` is the invoking module's own.

/// `sql_alert_settings!(Store, reader_pool_method)`.
macro_rules! sql_alert_settings {
    ($store:ident, $reader:ident) => {
        #[async_trait::async_trait]
        impl gateway_admin::ports::AlertSettings for $store {
            async fn list_alert_webhooks(
                &self,
            ) -> Result<Vec<gateway_admin::alert_settings::StoredWebhook>, StorageError> {
                let rows = sqlx::query(
                    "SELECT id, name, url, kinds, enabled, created_at, updated_at FROM alert_webhooks ORDER BY id",
                )
                .fetch_all(self.$reader())
                .await
                .map_err(storage_error)?;
                rows.iter().map($crate::rows::alert_settings::webhook_from_row).collect()
            }

            async fn get_alert_webhook(
                &self,
                id: gateway_admin::alert_settings::AlertWebhookId,
            ) -> Result<gateway_admin::alert_settings::StoredWebhook, StorageError> {
                let row = sqlx::query(
                    "SELECT id, name, url, kinds, enabled, created_at, updated_at FROM alert_webhooks WHERE id = $1",
                )
                .bind(id.0)
                .fetch_optional(self.$reader())
                .await
                .map_err(storage_error)?
                .ok_or_else(|| StorageError::not_found("alert webhook", id))?;
                $crate::rows::alert_settings::webhook_from_row(&row)
            }

            async fn alert_webhook_target(
                &self,
                id: gateway_admin::alert_settings::AlertWebhookId,
            ) -> Result<gateway_admin::alerting::Webhook, StorageError> {
                let row = sqlx::query(
                    "SELECT id, name, url, kinds, secret_ciphertext, secret_key_id FROM alert_webhooks WHERE id = $1",
                )
                .bind(id.0)
                .fetch_optional(self.$reader())
                .await
                .map_err(storage_error)?
                .ok_or_else(|| StorageError::not_found("alert webhook", id))?;
                $crate::rows::alert_settings::target_from_row(&row, self.keyring()?)
            }

            async fn enabled_alert_webhooks(&self) -> Result<Vec<gateway_admin::alerting::Webhook>, StorageError> {
                let rows = sqlx::query(
                    "SELECT id, name, url, kinds, secret_ciphertext, secret_key_id FROM alert_webhooks \
                     WHERE enabled ORDER BY id",
                )
                .fetch_all(self.$reader())
                .await
                .map_err(storage_error)?;
                if rows.is_empty() {
                    return Ok(Vec::new());
                }
                Ok($crate::rows::alert_settings::open_targets(&rows, self.keyring()?))
            }

            async fn list_alert_rules(&self) -> Result<Vec<gateway_admin::alert_settings::AlertRule>, StorageError> {
                let rows = sqlx::query(
                    "SELECT kind, enabled, threshold_percent, window_seconds, min_requests FROM alert_rules \
                     ORDER BY kind",
                )
                .fetch_all(self.$reader())
                .await
                .map_err(storage_error)?;
                Ok($crate::rows::alert_settings::complete_rules(
                    rows.iter().map($crate::rows::alert_settings::rule_from_row).collect::<Result<_, _>>()?,
                ))
            }
        }
    };
}
pub(crate) use sql_alert_settings;
