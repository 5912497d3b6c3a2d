//! [`BackupJobs`]: backup settings (read side) and the record lifecycle. At most one job is
//! active at a time: the partial unique index `backup_records_one_active_key` decides races.
//! (Embedded mode has no `pg_dump` to run; the records and settings behave as in production.)

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_admin::backup::{
    BackupId, BackupProgress, BackupRecord, BackupSettings, BackupStorageSecrets, BackupTransfer, BackupTrigger,
};
use gateway_admin::ports::BackupJobs;
use gateway_core::ports::StorageError;

use crate::postgres::column_values::int8;
use crate::postgres::error_mapping::corrupt;
use crate::rows::backups::{record_from_row, secrets_from_row, settings_from_row};
use crate::sql_shared::backup_steps::{
    deleted, not_completed, not_running, progress_columns, progress_conflict, touched_or, updated_or, verification,
};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::{micros, now_micros, opt_micros};

macro_rules! record_columns {
    () => {
        "id, \"trigger\", state, object_key, size_bytes, sha256, error_code, error_message, expires_at, \
         created_at, started_at, finished_at, updated_at, row_counts, bytes_done, upload_id, verified_at, verify_error"
    };
}

async fn fetch_records(
    store: &SqliteStore,
    query: sqlx::query::Query<'_, sqlx::Sqlite, sqlx::sqlite::SqliteArguments>,
) -> Result<Vec<BackupRecord>, StorageError> {
    let rows = query.fetch_all(store.reader()).await.map_err(storage_error)?;
    rows.iter().map(record_from_row).collect()
}

#[async_trait]
impl BackupJobs for SqliteStore {
    async fn read_backup_settings(&self) -> Result<BackupSettings, StorageError> {
        let row = sqlx::query(
            "SELECT enabled, endpoint, region, bucket, path_style, prefix, credentials_ciphertext IS NOT NULL \
             AS has_credentials, schedule_cron, retention_count, retention_days, schedule_cursor_at, updated_at \
             FROM backup_settings WHERE id = 1",
        )
        .fetch_optional(self.reader())
        .await
        .map_err(storage_error)?
        .ok_or_else(|| corrupt("backup_settings", "the singleton row is missing"))?;
        settings_from_row(&row)
    }

    async fn read_backup_secrets(&self) -> Result<Option<BackupStorageSecrets>, StorageError> {
        let row = sqlx::query(
            "SELECT credentials_ciphertext, credentials_key_id FROM backup_settings \
             WHERE id = 1 AND credentials_ciphertext IS NOT NULL",
        )
        .fetch_optional(self.reader())
        .await
        .map_err(storage_error)?;
        let Some(row) = row else { return Ok(None) };
        secrets_from_row(&row, self.keyring()?).map(Some)
    }

    async fn advance_backup_schedule(&self, cursor: OffsetDateTime) -> Result<(), StorageError> {
        sqlx::query("UPDATE backup_settings SET schedule_cursor_at = $1 WHERE id = 1")
            .bind(micros(cursor))
            .execute(self.writer())
            .await
            .map_err(storage_error)?;
        Ok(())
    }

    async fn enqueue_backup(
        &self,
        trigger: BackupTrigger,
        expires_at: Option<OffsetDateTime>,
    ) -> Result<BackupRecord, StorageError> {
        let row = sqlx::query(concat!(
            "INSERT INTO backup_records (\"trigger\", expires_at, created_at, updated_at) VALUES ($1, $2, $3, $3) \
             RETURNING ",
            record_columns!()
        ))
        .bind(trigger.as_str())
        .bind(opt_micros(expires_at))
        .bind(now_micros())
        .fetch_one(self.writer())
        .await
        .map_err(storage_error)?;
        record_from_row(&row)
    }

    async fn claim_queued_backup(&self, now: OffsetDateTime) -> Result<Option<BackupRecord>, StorageError> {
        let row = sqlx::query(concat!(
            "UPDATE backup_records SET state = 'dumping', started_at = $1, updated_at = $1 \
             WHERE id = (SELECT id FROM backup_records WHERE state = 'queued' ORDER BY id LIMIT 1) RETURNING ",
            record_columns!()
        ))
        .bind(micros(now))
        .fetch_optional(self.writer())
        .await
        .map_err(storage_error)?;
        row.as_ref().map(record_from_row).transpose()
    }

    async fn advance_backup(
        &self,
        id: BackupId,
        progress: BackupProgress,
        now: OffsetDateTime,
    ) -> Result<BackupRecord, StorageError> {
        let c = progress_columns(&progress)?;
        let row = sqlx::query(concat!(
            "UPDATE backup_records SET state = $2, object_key = COALESCE($4, object_key), \
             size_bytes = COALESCE($5, size_bytes), sha256 = COALESCE($6, sha256), \
             error_code = COALESCE($7, error_code), error_message = COALESCE($8, error_message), \
             finished_at = CASE WHEN $9 THEN $10 ELSE finished_at END, updated_at = $10, \
             upload_id = CASE WHEN $9 THEN NULL ELSE upload_id END \
             WHERE id = $1 AND state IN (SELECT value FROM json_each($3)) RETURNING ",
            record_columns!()
        ))
        .bind(id.0)
        .bind(c.target)
        .bind(serde_json::Value::from(c.from).to_string())
        .bind(c.object_key)
        .bind(c.size_bytes)
        .bind(c.sha256)
        .bind(c.error_code)
        .bind(c.error_message)
        .bind(c.terminal)
        .bind(micros(now))
        .fetch_optional(self.writer())
        .await
        .map_err(storage_error)?;
        let updated = row.as_ref().map(record_from_row).transpose()?;
        updated_or(self, id, updated, progress_conflict(&progress)).await
    }

    async fn update_backup_transfer(
        &self,
        id: BackupId,
        transfer: &BackupTransfer,
        now: OffsetDateTime,
    ) -> Result<(), StorageError> {
        let counts = transfer
            .row_counts
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| corrupt("backup_records.row_counts", e))?;
        let done = sqlx::query(
            "UPDATE backup_records SET upload_id = COALESCE($2, upload_id), \
             bytes_done = MAX(bytes_done, $3), row_counts = COALESCE($4, row_counts), updated_at = $5 \
             WHERE id = $1 AND state IN ('dumping', 'uploading')",
        )
        .bind(id.0)
        .bind(transfer.upload_id.as_deref())
        .bind(int8(transfer.bytes_done, "backup_records.bytes_done")?)
        .bind(counts)
        .bind(micros(now))
        .execute(self.writer())
        .await
        .map_err(storage_error)?;
        touched_or(self, id, done.rows_affected(), not_running()).await
    }

    async fn record_backup_verification(
        &self,
        id: BackupId,
        outcome: Result<(), String>,
        now: OffsetDateTime,
    ) -> Result<BackupRecord, StorageError> {
        let (verified, error) = verification(&outcome);
        let row = sqlx::query(concat!(
            "UPDATE backup_records SET verified_at = CASE WHEN $2 THEN $4 ELSE verified_at END, \
             verify_error = $3, updated_at = $4 WHERE id = $1 AND state = 'completed' RETURNING ",
            record_columns!()
        ))
        .bind(id.0)
        .bind(verified)
        .bind(error)
        .bind(micros(now))
        .fetch_optional(self.writer())
        .await
        .map_err(storage_error)?;
        let updated = row.as_ref().map(record_from_row).transpose()?;
        updated_or(self, id, updated, not_completed()).await
    }

    async fn delete_backup_record(&self, id: BackupId) -> Result<(), StorageError> {
        let done = sqlx::query("DELETE FROM backup_records WHERE id = $1")
            .bind(id.0)
            .execute(self.writer())
            .await
            .map_err(storage_error)?;
        deleted(done.rows_affected(), id)
    }

    async fn list_backups(&self, before_id: Option<BackupId>, limit: u32) -> Result<Vec<BackupRecord>, StorageError> {
        let query = sqlx::query(concat!(
            "SELECT ",
            record_columns!(),
            " FROM backup_records WHERE ($1 IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"
        ))
        .bind(before_id.map(|b| b.0))
        .bind(int8(u64::from(limit), "limit")?);
        fetch_records(self, query).await
    }

    async fn get_backup(&self, id: BackupId) -> Result<BackupRecord, StorageError> {
        let row = sqlx::query(concat!("SELECT ", record_columns!(), " FROM backup_records WHERE id = $1"))
            .bind(id.0)
            .fetch_optional(self.reader())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("backup", id))?;
        record_from_row(&row)
    }

    async fn unfinished_backups(&self) -> Result<Vec<BackupRecord>, StorageError> {
        let query = sqlx::query(concat!(
            "SELECT ",
            record_columns!(),
            " FROM backup_records WHERE state IN ('dumping', 'uploading', 'deleting') ORDER BY id"
        ));
        fetch_records(self, query).await
    }

    async fn expired_backups(&self, now: OffsetDateTime, limit: u32) -> Result<Vec<BackupRecord>, StorageError> {
        let query = sqlx::query(concat!(
            "SELECT ",
            record_columns!(),
            " FROM backup_records WHERE state IN ('completed', 'failed') AND expires_at <= $1 \
             ORDER BY expires_at, id LIMIT $2"
        ))
        .bind(micros(now))
        .bind(int8(u64::from(limit), "limit")?);
        fetch_records(self, query).await
    }
}
