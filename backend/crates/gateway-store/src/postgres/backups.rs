//! [`BackupJobs`]: backup settings (read side) and the record lifecycle. At most one job is
//! active at a time: the partial unique index `backup_records_one_active_key` decides races.

use async_trait::async_trait;
use secrecy::ExposeSecret;
use sqlx::postgres::PgRow;
use time::OffsetDateTime;

use gateway_admin::backup::{
    BackupId, BackupProgress, BackupRecord, BackupSettings, BackupStorageSecrets, BackupTransfer, BackupTrigger,
    RowCounts,
};
use gateway_admin::ports::BackupJobs;
use gateway_core::ports::StorageError;

use crate::crypto::SealedSecret;
use crate::postgres::PgStore;
use crate::postgres::column_values::{ColumnRead, closed, digest, int8, opt_u32_of, opt_u64_of};
use crate::postgres::error_mapping::{corrupt, storage_error};
use crate::postgres::sealing::{BACKUP_SECRETS_CONTEXT, crypto_error};

macro_rules! record_columns {
    () => {
        "id, trigger, state, object_key, size_bytes, sha256, error_code, error_message, expires_at, \
         created_at, started_at, finished_at, updated_at, row_counts, bytes_done, upload_id, verified_at, verify_error"
    };
}

macro_rules! record_select {
    () => {
        concat!("SELECT ", record_columns!(), " FROM backup_records ")
    };
}

fn record_from_row(row: &PgRow) -> Result<BackupRecord, StorageError> {
    Ok(BackupRecord {
        id: BackupId(row.col("id")?),
        trigger: closed(row.col::<&str>("trigger")?, "backup_records.trigger")?,
        state: closed(row.col::<&str>("state")?, "backup_records.state")?,
        object_key: row.col("object_key")?,
        size_bytes: opt_u64_of(row.col("size_bytes")?, "backup_records.size_bytes")?,
        sha256: row.col::<Option<Vec<u8>>>("sha256")?.map(|d| digest(d, "backup_records.sha256")).transpose()?,
        error_code: row.col("error_code")?,
        error_message: row.col("error_message")?,
        expires_at: row.col("expires_at")?,
        created_at: row.col("created_at")?,
        started_at: row.col("started_at")?,
        finished_at: row.col("finished_at")?,
        updated_at: row.col("updated_at")?,
        row_counts: row.col::<Option<sqlx::types::Json<RowCounts>>>("row_counts")?.map(|json| json.0),
        bytes_done: opt_u64_of(Some(row.col("bytes_done")?), "backup_records.bytes_done")?.unwrap_or(0),
        upload_id: row.col("upload_id")?,
        verified_at: row.col("verified_at")?,
        verify_error: row.col("verify_error")?,
    })
}

async fn fetch_records(
    store: &PgStore,
    query: sqlx::query::Query<'_, sqlx::Postgres, sqlx::postgres::PgArguments>,
) -> Result<Vec<BackupRecord>, StorageError> {
    let rows = query.fetch_all(store.pool()).await.map_err(storage_error)?;
    rows.iter().map(record_from_row).collect()
}

#[async_trait]
impl BackupJobs for PgStore {
    async fn read_backup_settings(&self) -> Result<BackupSettings, StorageError> {
        let row = sqlx::query(
            "SELECT enabled, endpoint, region, bucket, path_style, prefix, credentials_ciphertext IS NOT NULL \
             AS has_credentials, schedule_cron, retention_count, retention_days, schedule_cursor_at, updated_at \
             FROM backup_settings WHERE id = 1",
        )
        .fetch_optional(self.pool())
        .await
        .map_err(storage_error)?
        .ok_or_else(|| corrupt("backup_settings", "the singleton row is missing"))?;
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
            schedule_cursor_at: row.col("schedule_cursor_at")?,
            updated_at: row.col("updated_at")?,
        })
    }

    async fn read_backup_secrets(&self) -> Result<Option<BackupStorageSecrets>, StorageError> {
        let row = sqlx::query(
            "SELECT credentials_ciphertext, credentials_key_id FROM backup_settings \
             WHERE id = 1 AND credentials_ciphertext IS NOT NULL",
        )
        .fetch_optional(self.pool())
        .await
        .map_err(storage_error)?;
        let Some(row) = row else { return Ok(None) };
        let sealed =
            SealedSecret { key_id: row.col("credentials_key_id")?, ciphertext: row.col("credentials_ciphertext")? };
        let json = self.keyring()?.open(&sealed, BACKUP_SECRETS_CONTEXT).map_err(crypto_error)?;
        BackupStorageSecrets::from_sealed_json(json.expose_secret())
            .map(Some)
            .ok_or_else(|| corrupt("backup_settings.credentials_ciphertext", "not a storage secrets document"))
    }

    async fn advance_backup_schedule(&self, cursor: OffsetDateTime) -> Result<(), StorageError> {
        sqlx::query("UPDATE backup_settings SET schedule_cursor_at = $1 WHERE id = 1")
            .bind(cursor)
            .execute(self.pool())
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
            "INSERT INTO backup_records (trigger, expires_at) VALUES ($1, $2) RETURNING ",
            record_columns!()
        ))
        .bind(trigger.as_str())
        .bind(expires_at)
        .fetch_one(self.pool())
        .await
        .map_err(storage_error)?;
        record_from_row(&row)
    }

    async fn claim_queued_backup(&self, now: OffsetDateTime) -> Result<Option<BackupRecord>, StorageError> {
        let row = sqlx::query(concat!(
            "UPDATE backup_records SET state = 'dumping', started_at = $1, updated_at = $1 \
                 WHERE id = (SELECT id FROM backup_records WHERE state = 'queued' ORDER BY id LIMIT 1 \
                             FOR UPDATE SKIP LOCKED) RETURNING ",
            record_columns!()
        ))
        .bind(now)
        .fetch_optional(self.pool())
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
        let from: Vec<&str> = progress.allowed_from().iter().map(|s| s.as_str()).collect();
        let (object_key, size, sha, code, message) = match &progress {
            BackupProgress::Uploading { object_key } => (Some(object_key.as_str()), None, None, None, None),
            BackupProgress::Completed { object_key, size_bytes, sha256 } => (
                Some(object_key.as_str()),
                Some(int8(*size_bytes, "backup_records.size_bytes")?),
                Some(sha256.as_slice()),
                None,
                None,
            ),
            BackupProgress::Failed { error_code, error_message } => {
                (None, None, None, Some(error_code.as_str()), Some(error_message.as_str()))
            }
            BackupProgress::Deleting => (None, None, None, None, None),
        };
        let terminal = matches!(progress, BackupProgress::Completed { .. } | BackupProgress::Failed { .. });
        let row = sqlx::query(concat!(
            "UPDATE backup_records SET state = $2, object_key = COALESCE($4, object_key), \
             size_bytes = COALESCE($5, size_bytes), sha256 = COALESCE($6, sha256), \
             error_code = COALESCE($7, error_code), error_message = COALESCE($8, error_message), \
             finished_at = CASE WHEN $9 THEN $10 ELSE finished_at END, updated_at = $10, \
             upload_id = CASE WHEN $9 THEN NULL ELSE upload_id END \
             WHERE id = $1 AND state = ANY($3) RETURNING ",
            record_columns!()
        ))
        .bind(id.0)
        .bind(progress.target().as_str())
        .bind(&from)
        .bind(object_key)
        .bind(size)
        .bind(sha)
        .bind(code)
        .bind(message)
        .bind(terminal)
        .bind(now)
        .fetch_optional(self.pool())
        .await
        .map_err(storage_error)?;
        match row {
            Some(row) => record_from_row(&row),
            None => {
                self.get_backup(id).await?;
                Err(StorageError::Conflict { constraint: format!("backup_records.state -> {}", progress.target()) })
            }
        }
    }

    async fn update_backup_transfer(
        &self,
        id: BackupId,
        transfer: &BackupTransfer,
        now: OffsetDateTime,
    ) -> Result<(), StorageError> {
        let done = sqlx::query(
            "UPDATE backup_records SET upload_id = COALESCE($2, upload_id), \
             bytes_done = GREATEST(bytes_done, $3), row_counts = COALESCE($4, row_counts), updated_at = $5 \
             WHERE id = $1 AND state IN ('dumping', 'uploading')",
        )
        .bind(id.0)
        .bind(transfer.upload_id.as_deref())
        .bind(int8(transfer.bytes_done, "backup_records.bytes_done")?)
        .bind(transfer.row_counts.as_ref().map(sqlx::types::Json))
        .bind(now)
        .execute(self.pool())
        .await
        .map_err(storage_error)?;
        if done.rows_affected() == 1 {
            return Ok(());
        }
        self.get_backup(id).await?;
        Err(StorageError::Conflict { constraint: "backup_records.state (not running)".into() })
    }

    async fn record_backup_verification(
        &self,
        id: BackupId,
        outcome: Result<(), String>,
        now: OffsetDateTime,
    ) -> Result<BackupRecord, StorageError> {
        let (verified, error) = match &outcome {
            Ok(()) => (true, None),
            Err(e) => (false, Some(e.as_str())),
        };
        let row = sqlx::query(concat!(
            "UPDATE backup_records SET verified_at = CASE WHEN $2 THEN $4 ELSE verified_at END, \
             verify_error = $3, updated_at = $4 WHERE id = $1 AND state = 'completed' RETURNING ",
            record_columns!()
        ))
        .bind(id.0)
        .bind(verified)
        .bind(error)
        .bind(now)
        .fetch_optional(self.pool())
        .await
        .map_err(storage_error)?;
        match row {
            Some(row) => record_from_row(&row),
            None => {
                self.get_backup(id).await?;
                Err(StorageError::Conflict { constraint: "backup_records.state (not completed)".into() })
            }
        }
    }

    async fn delete_backup_record(&self, id: BackupId) -> Result<(), StorageError> {
        let done = sqlx::query("DELETE FROM backup_records WHERE id = $1")
            .bind(id.0)
            .execute(self.pool())
            .await
            .map_err(storage_error)?;
        if done.rows_affected() == 1 { Ok(()) } else { Err(StorageError::not_found("backup", id)) }
    }

    async fn list_backups(&self, before_id: Option<BackupId>, limit: u32) -> Result<Vec<BackupRecord>, StorageError> {
        let query =
            sqlx::query(concat!(record_select!(), "WHERE ($1::bigint IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"))
                .bind(before_id.map(|b| b.0))
                .bind(int8(u64::from(limit), "limit")?);
        fetch_records(self, query).await
    }

    async fn get_backup(&self, id: BackupId) -> Result<BackupRecord, StorageError> {
        let row = sqlx::query(concat!(record_select!(), "WHERE id = $1"))
            .bind(id.0)
            .fetch_optional(self.pool())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("backup", id))?;
        record_from_row(&row)
    }

    async fn unfinished_backups(&self) -> Result<Vec<BackupRecord>, StorageError> {
        let query =
            sqlx::query(concat!(record_select!(), "WHERE state IN ('dumping', 'uploading', 'deleting') ORDER BY id"));
        fetch_records(self, query).await
    }

    async fn expired_backups(&self, now: OffsetDateTime, limit: u32) -> Result<Vec<BackupRecord>, StorageError> {
        let query = sqlx::query(concat!(
            record_select!(),
            "WHERE state IN ('completed', 'failed') AND expires_at <= $1 ORDER BY expires_at, id LIMIT $2"
        ))
        .bind(now)
        .bind(int8(u64::from(limit), "limit")?);
        fetch_records(self, query).await
    }
}
