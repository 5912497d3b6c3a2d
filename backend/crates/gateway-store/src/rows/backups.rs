//! Mapping `backup_records` and `backup_settings` rows, for both dialects, and opening the sealed
//! storage secrets.

use secrecy::ExposeSecret;

use gateway_admin::backup::{BackupId, BackupRecord, BackupSettings, BackupStorageSecrets, RowCounts};
use gateway_core::ports::StorageError;

use crate::crypto::{Keyring, SealedSecret};
use crate::postgres::column_values::{closed, digest, opt_u32_of, opt_u64_of};
use crate::postgres::error_mapping::corrupt;
use crate::postgres::sealing::{BACKUP_SECRETS_CONTEXT, crypto_error};
use crate::row_columns::RowColumns;

/// The columns [`record_from_row`] reads; the same text on both dialects.
macro_rules! record_columns {
    () => {
        "id, \"trigger\", state, object_key, size_bytes, sha256, error_code, error_message, expires_at, \
         created_at, started_at, finished_at, updated_at, row_counts, bytes_done, upload_id, verified_at, verify_error"
    };
}
pub(crate) use record_columns;

pub(crate) fn record_from_row(row: &impl RowColumns) -> Result<BackupRecord, StorageError> {
    Ok(BackupRecord {
        id: BackupId(row.col("id")?),
        trigger: closed(row.col::<&str>("trigger")?, "backup_records.trigger")?,
        state: closed(row.col::<&str>("state")?, "backup_records.state")?,
        object_key: row.col("object_key")?,
        size_bytes: opt_u64_of(row.col("size_bytes")?, "backup_records.size_bytes")?,
        sha256: row.col::<Option<Vec<u8>>>("sha256")?.map(|d| digest(d, "backup_records.sha256")).transpose()?,
        error_code: row.col("error_code")?,
        error_message: row.col("error_message")?,
        expires_at: row.opt_ts("expires_at")?,
        created_at: row.ts("created_at")?,
        started_at: row.opt_ts("started_at")?,
        finished_at: row.opt_ts("finished_at")?,
        updated_at: row.ts("updated_at")?,
        row_counts: row.opt_json_as::<RowCounts>("row_counts")?,
        bytes_done: opt_u64_of(Some(row.col("bytes_done")?), "backup_records.bytes_done")?.unwrap_or(0),
        upload_id: row.col("upload_id")?,
        verified_at: row.opt_ts("verified_at")?,
        verify_error: row.col("verify_error")?,
    })
}

pub(crate) fn settings_from_row(row: &impl RowColumns) -> Result<BackupSettings, StorageError> {
    Ok(BackupSettings {
        enabled: row.col("enabled")?,
        endpoint: row.col("endpoint")?,
        region: row.col("region")?,
        bucket: row.col("bucket")?,
        path_style: row.col("path_style")?,
        prefix: row.col("prefix")?,
        has_credentials: row.col("has_credentials")?,
        schedule_cron: row.col("schedule_cron")?,
        retention_count: opt_u32_of(row.col("retention_count")?, "backup_settings.retention_count")?,
        retention_days: opt_u32_of(row.col("retention_days")?, "backup_settings.retention_days")?,
        schedule_cursor_at: row.opt_ts("schedule_cursor_at")?,
        updated_at: row.ts("updated_at")?,
    })
}

/// Opens `credentials_ciphertext` / `credentials_key_id` of the settings row.
pub(crate) fn secrets_from_row(row: &impl RowColumns, keyring: &Keyring) -> Result<BackupStorageSecrets, StorageError> {
    let sealed =
        SealedSecret { key_id: row.col("credentials_key_id")?, ciphertext: row.col("credentials_ciphertext")? };
    let json = keyring.open(&sealed, BACKUP_SECRETS_CONTEXT).map_err(crypto_error)?;
    BackupStorageSecrets::from_sealed_json(json.expose_secret())
        .ok_or_else(|| corrupt("backup_settings.credentials_ciphertext", "not a storage secrets document"))
}
