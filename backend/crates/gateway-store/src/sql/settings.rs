//! The settings singletons: the runtime settings (read by the snapshot and the admin API,
//! written by the admin unit of work, with the revision probe) and the backup settings' write.

use async_trait::async_trait;
use secrecy::ExposeSecret;

use gateway_admin::backup::{BackupSettingsUpdate, SecretsChange};
use gateway_admin::ports::RuntimeSettingsReader;
use gateway_core::domain::{ConfigRevision, RuntimeSettings};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::column_values::{int4, opt_int4};
use crate::postgres::sealing::{BACKUP_SECRETS_CONTEXT, crypto_error};
use crate::row_columns::RowColumns;
use crate::rows::runtime_settings::{
    CONFIG_REVISION_SELECT, RUNTIME_SETTINGS_SELECT, aliases_json, missing_singleton, settings_from_row,
};
use crate::sql::store::SqlStore;
use crate::sql::store::missing_key;
use crate::sql::{Arg, Dialect, On, Sql, Statement};

const READ_SETTINGS: Sql = Sql::same(RUNTIME_SETTINGS_SELECT);
const READ_REVISION: Sql = Sql::same(CONFIG_REVISION_SELECT);
const WRITE_SETTINGS: Sql = Sql::same(
    "UPDATE runtime_settings SET model_aliases = $1, rotation_strategy = $2, default_account_concurrency = $3, \
     request_interval_ms = $4, refresh_margin_seconds = $5, refresh_concurrency = $6, \
     request_retention_days = $7, ops_event_retention_days = $8, updated_at = $9 WHERE id = 1",
);
const WRITE_BACKUP_SETTINGS: Sql = Sql::same(
    "UPDATE backup_settings SET enabled = $1, endpoint = $2, region = $3, bucket = $4, path_style = $5, \
     prefix = $6, \
     credentials_ciphertext = CASE WHEN $7 THEN $8 ELSE credentials_ciphertext END, \
     credentials_key_id = CASE WHEN $7 THEN $9 ELSE credentials_key_id END, \
     schedule_cron = $10, retention_count = $11, retention_days = $12, updated_at = $13 WHERE id = 1",
);

pub(crate) async fn load_runtime_settings<'e, D: Dialect>(
    on: impl Into<On<'e, D>>,
) -> Result<(ConfigRevision, RuntimeSettings), StorageError> {
    let row = Statement::<D>::new(&READ_SETTINGS).fetch_optional(on).await?.ok_or_else(missing_singleton)?;
    settings_from_row(&row)
}

pub(crate) async fn current_config_revision<'e, D: Dialect>(
    on: impl Into<On<'e, D>>,
) -> Result<ConfigRevision, StorageError> {
    let row = Statement::<D>::new(&READ_REVISION).fetch_optional(on).await?.ok_or_else(missing_singleton)?;
    Ok(ConfigRevision(row.col("config_revision")?))
}

#[async_trait]
impl<D: Dialect> RuntimeSettingsReader for SqlStore<D> {
    async fn read_runtime_settings(&self) -> Result<(ConfigRevision, RuntimeSettings), StorageError> {
        load_runtime_settings::<D>(self.reader()).await
    }
}

pub(crate) async fn update_runtime_settings<D: Dialect>(
    conn: &mut D::Connection,
    s: &RuntimeSettings,
) -> Result<(), StorageError> {
    Statement::<D>::new(&WRITE_SETTINGS)
        .bind(Arg::json(Some(aliases_json(s)?)))
        .bind(s.rotation_strategy.as_str())
        .bind(int4(s.default_account_concurrency, "runtime_settings.default_account_concurrency")?)
        .bind(int4(s.request_interval_ms, "runtime_settings.request_interval_ms")?)
        .bind(int4(s.refresh_margin_seconds, "runtime_settings.refresh_margin_seconds")?)
        .bind(int4(s.refresh_concurrency, "runtime_settings.refresh_concurrency")?)
        .bind(int4(s.request_retention_days, "runtime_settings.request_retention_days")?)
        .bind(int4(s.ops_event_retention_days, "runtime_settings.ops_event_retention_days")?)
        .bind(time::OffsetDateTime::now_utc())
        .execute(conn)
        .await?;
    Ok(())
}

pub(crate) async fn update_backup_settings<D: Dialect>(
    conn: &mut D::Connection,
    keyring: Option<&Keyring>,
    u: &BackupSettingsUpdate,
) -> Result<(), StorageError> {
    let secrets = secrets_columns(keyring, &u.credentials)?;
    Statement::<D>::new(&WRITE_BACKUP_SETTINGS)
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
        .bind(time::OffsetDateTime::now_utc())
        .execute(conn)
        .await?;
    Ok(())
}

/// The sealed columns a backup-settings update writes: `replace = false` keeps the stored secrets.
struct SecretsColumns {
    replace: bool,
    ciphertext: Option<Vec<u8>>,
    key_id: Option<String>,
}

fn secrets_columns(keyring: Option<&Keyring>, change: &SecretsChange) -> Result<SecretsColumns, StorageError> {
    Ok(match change {
        SecretsChange::Keep => SecretsColumns { replace: false, ciphertext: None, key_id: None },
        SecretsChange::Clear => SecretsColumns { replace: true, ciphertext: None, key_id: None },
        SecretsChange::Replace(secrets) => {
            let keyring = keyring.ok_or_else(missing_key)?;
            let json = secrets.to_sealable_json();
            let sealed = keyring.seal(json.expose_secret().as_bytes(), BACKUP_SECRETS_CONTEXT).map_err(crypto_error)?;
            SecretsColumns { replace: true, ciphertext: Some(sealed.ciphertext), key_id: Some(sealed.key_id) }
        }
    })
}
