//! Runtime and backup settings mutations of the admin unit of work.

use sqlx::SqliteConnection;

use gateway_admin::backup::BackupSettingsUpdate;
use gateway_core::domain::RuntimeSettings;
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::column_values::{int4, opt_int4};
use crate::rows::runtime_settings::aliases_json;
use crate::sql_shared::settings_values::secrets_columns;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::{json_text, now_micros};

pub(crate) async fn update_runtime_settings(
    conn: &mut SqliteConnection,
    s: &RuntimeSettings,
) -> Result<(), StorageError> {
    let aliases = json_text(&aliases_json(s)?);
    sqlx::query(
        "UPDATE runtime_settings SET model_aliases = $1, rotation_strategy = $2, default_account_concurrency = $3, \
         request_interval_ms = $4, refresh_margin_seconds = $5, refresh_concurrency = $6, \
         request_retention_days = $7, ops_event_retention_days = $8, updated_at = $9 WHERE id = 1",
    )
    .bind(aliases)
    .bind(s.rotation_strategy.as_str())
    .bind(int4(s.default_account_concurrency, "runtime_settings.default_account_concurrency")?)
    .bind(int4(s.request_interval_ms, "runtime_settings.request_interval_ms")?)
    .bind(int4(s.refresh_margin_seconds, "runtime_settings.refresh_margin_seconds")?)
    .bind(int4(s.refresh_concurrency, "runtime_settings.refresh_concurrency")?)
    .bind(int4(s.request_retention_days, "runtime_settings.request_retention_days")?)
    .bind(int4(s.ops_event_retention_days, "runtime_settings.ops_event_retention_days")?)
    .bind(now_micros())
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(())
}

pub(crate) async fn update_backup_settings(
    conn: &mut SqliteConnection,
    keyring: Option<&Keyring>,
    u: &BackupSettingsUpdate,
) -> Result<(), StorageError> {
    let secrets = secrets_columns(keyring, &u.credentials)?;
    sqlx::query(
        "UPDATE backup_settings SET enabled = $1, endpoint = $2, region = $3, bucket = $4, path_style = $5, \
         prefix = $6, \
         credentials_ciphertext = CASE WHEN $7 THEN $8 ELSE credentials_ciphertext END, \
         credentials_key_id = CASE WHEN $7 THEN $9 ELSE credentials_key_id END, \
         schedule_cron = $10, retention_count = $11, retention_days = $12, updated_at = $13 WHERE id = 1",
    )
    .bind(u.enabled)
    .bind(&u.endpoint)
    .bind(&u.region)
    .bind(&u.bucket)
    .bind(u.path_style)
    .bind(&u.prefix)
    .bind(secrets.replace)
    .bind(secrets.ciphertext)
    .bind(secrets.key_id)
    .bind(u.schedule_cron.as_deref())
    .bind(opt_int4(u.retention_count, "backup_settings.retention_count")?)
    .bind(opt_int4(u.retention_days, "backup_settings.retention_days")?)
    .bind(now_micros())
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(())
}
