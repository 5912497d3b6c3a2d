//! [`BackupJobs`]: backup settings (read side) and the record lifecycle. At most one job is
//! active at a time: the partial unique index `backup_records_one_active_key` decides races.
//! (Embedded mode backs up with `VACUUM INTO`; the records and settings behave alike.) Rows are
//! mapped by `rows::backups`, results shaped by `sql_shared::backup_steps`.

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_admin::backup::{
    BackupId, BackupProgress, BackupRecord, BackupSettings, BackupStorageSecrets, BackupTransfer, BackupTrigger,
};
use gateway_admin::ports::BackupJobs;
use gateway_core::ports::StorageError;

use crate::postgres::column_values::int8;
use crate::postgres::error_mapping::corrupt;
use crate::rows::backups::{record_columns, record_from_row, secrets_from_row, settings_from_row};
use crate::sql::store::SqlStore;
use crate::sql::{Arg, Dialect, Sql, Statement};
use crate::sql_shared::backup_steps as steps;

const SETTINGS: Sql = Sql::same(
    "SELECT enabled, endpoint, region, bucket, path_style, prefix, credentials_ciphertext IS NOT NULL \
     AS has_credentials, schedule_cron, retention_count, retention_days, schedule_cursor_at, \
     updated_at FROM backup_settings WHERE id = 1",
);
const SECRETS: Sql = Sql::same(
    "SELECT credentials_ciphertext, credentials_key_id FROM backup_settings \
     WHERE id = 1 AND credentials_ciphertext IS NOT NULL",
);
const ADVANCE_SCHEDULE: Sql = Sql::same("UPDATE backup_settings SET schedule_cursor_at = $1 WHERE id = 1");
const ENQUEUE: Sql = Sql::same(concat!(
    "INSERT INTO backup_records (\"trigger\", expires_at, created_at, updated_at) VALUES ($1, $2, $3, $3) RETURNING ",
    record_columns!()
));
const CLAIM_QUEUED: Sql = Sql::each(
    concat!(
        "UPDATE backup_records SET state = 'dumping', started_at = $1, updated_at = $1 \
         WHERE id = (SELECT id FROM backup_records WHERE state = 'queued' ORDER BY id LIMIT 1 \
                     FOR UPDATE SKIP LOCKED) RETURNING ",
        record_columns!()
    ),
    concat!(
        "UPDATE backup_records SET state = 'dumping', started_at = $1, updated_at = $1 \
         WHERE id = (SELECT id FROM backup_records WHERE state = 'queued' ORDER BY id LIMIT 1) RETURNING ",
        record_columns!()
    ),
);
macro_rules! advance {
    ($from_states:literal) => {
        concat!(
            "UPDATE backup_records SET state = $2, object_key = COALESCE($4, object_key), \
             size_bytes = COALESCE($5, size_bytes), sha256 = COALESCE($6, sha256), \
             error_code = COALESCE($7, error_code), error_message = COALESCE($8, error_message), \
             finished_at = CASE WHEN $9 THEN $10 ELSE finished_at END, updated_at = $10, \
             upload_id = CASE WHEN $9 THEN NULL ELSE upload_id END \
             WHERE id = $1 AND ",
            $from_states,
            " RETURNING ",
            record_columns!()
        )
    };
}
const ADVANCE: Sql = Sql::each(advance!("state = ANY($3)"), advance!("state IN (SELECT value FROM json_each($3))"));
const UPDATE_TRANSFER: Sql = Sql::each(
    "UPDATE backup_records SET upload_id = COALESCE($2, upload_id), \
     bytes_done = GREATEST(bytes_done, $3), row_counts = COALESCE($4, row_counts), updated_at = $5 \
     WHERE id = $1 AND state IN ('dumping', 'uploading')",
    "UPDATE backup_records SET upload_id = COALESCE($2, upload_id), \
     bytes_done = MAX(bytes_done, $3), row_counts = COALESCE($4, row_counts), updated_at = $5 \
     WHERE id = $1 AND state IN ('dumping', 'uploading')",
);
const VERIFY: Sql = Sql::same(concat!(
    "UPDATE backup_records SET verified_at = CASE WHEN $2 THEN $4 ELSE verified_at END, \
     verify_error = $3, updated_at = $4 WHERE id = $1 AND state = 'completed' RETURNING ",
    record_columns!()
));
const DELETE: Sql = Sql::same("DELETE FROM backup_records WHERE id = $1");
const LIST_PAGE: Sql = Sql::each(
    concat!(
        "SELECT ",
        record_columns!(),
        " FROM backup_records WHERE ($1::bigint IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"
    ),
    concat!(
        "SELECT ",
        record_columns!(),
        " FROM backup_records WHERE ($1 IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"
    ),
);
const ONE: Sql = Sql::same(concat!("SELECT ", record_columns!(), " FROM backup_records WHERE id = $1"));
const UNFINISHED: Sql = Sql::same(concat!(
    "SELECT ",
    record_columns!(),
    " FROM backup_records WHERE state IN ('dumping', 'uploading', 'deleting') ORDER BY id"
));
const EXPIRED: Sql = Sql::same(concat!(
    "SELECT ",
    record_columns!(),
    " FROM backup_records WHERE state IN ('completed', 'failed') AND expires_at <= $1 ORDER BY expires_at, id LIMIT $2"
));

#[async_trait]
impl<D: Dialect> BackupJobs for SqlStore<D> {
    async fn read_backup_settings(&self) -> Result<BackupSettings, StorageError> {
        let row = Statement::<D>::new(&SETTINGS)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| corrupt("backup_settings", "the singleton row is missing"))?;
        settings_from_row(&row)
    }

    async fn read_backup_secrets(&self) -> Result<Option<BackupStorageSecrets>, StorageError> {
        let Some(row) = Statement::<D>::new(&SECRETS).fetch_optional(self.reader()).await? else { return Ok(None) };
        secrets_from_row(&row, self.keyring()?).map(Some)
    }

    async fn advance_backup_schedule(&self, cursor: OffsetDateTime) -> Result<(), StorageError> {
        Statement::<D>::new(&ADVANCE_SCHEDULE).bind(cursor).execute(self.writer()).await?;
        Ok(())
    }

    async fn enqueue_backup(
        &self,
        trigger: BackupTrigger,
        expires_at: Option<OffsetDateTime>,
    ) -> Result<BackupRecord, StorageError> {
        let row = Statement::<D>::new(&ENQUEUE)
            .bind(trigger.as_str())
            .bind(expires_at)
            .bind(OffsetDateTime::now_utc())
            .fetch_one(self.writer())
            .await?;
        record_from_row(&row)
    }

    async fn claim_queued_backup(&self, now: OffsetDateTime) -> Result<Option<BackupRecord>, StorageError> {
        let row = Statement::<D>::new(&CLAIM_QUEUED).bind(now).fetch_optional(self.writer()).await?;
        row.as_ref().map(record_from_row).transpose()
    }

    async fn advance_backup(
        &self,
        id: BackupId,
        progress: BackupProgress,
        now: OffsetDateTime,
    ) -> Result<BackupRecord, StorageError> {
        let c = steps::progress_columns(&progress)?;
        let row = Statement::<D>::new(&ADVANCE)
            .bind(id.0)
            .bind(c.target)
            .bind(Arg::Texts(Some(c.from.iter().map(|s| (*s).to_owned()).collect())))
            .bind(c.object_key)
            .bind(c.size_bytes)
            .bind(c.sha256)
            .bind(c.error_code)
            .bind(c.error_message)
            .bind(c.terminal)
            .bind(now)
            .fetch_optional(self.writer())
            .await?;
        let updated = row.as_ref().map(record_from_row).transpose()?;
        steps::updated_or(self, id, updated, steps::progress_conflict(&progress)).await
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
            .map(serde_json::to_value)
            .transpose()
            .map_err(|e| corrupt("backup_records.row_counts", e))?;
        let touched = Statement::<D>::new(&UPDATE_TRANSFER)
            .bind(id.0)
            .bind(transfer.upload_id.as_deref())
            .bind(int8(transfer.bytes_done, "backup_records.bytes_done")?)
            .bind(Arg::json(counts))
            .bind(now)
            .execute(self.writer())
            .await?;
        steps::touched_or(self, id, touched, steps::not_running()).await
    }

    async fn record_backup_verification(
        &self,
        id: BackupId,
        outcome: Result<(), String>,
        now: OffsetDateTime,
    ) -> Result<BackupRecord, StorageError> {
        let (verified, error) = steps::verification(&outcome);
        let row = Statement::<D>::new(&VERIFY)
            .bind(id.0)
            .bind(verified)
            .bind(error)
            .bind(now)
            .fetch_optional(self.writer())
            .await?;
        let updated = row.as_ref().map(record_from_row).transpose()?;
        steps::updated_or(self, id, updated, steps::not_completed()).await
    }

    async fn delete_backup_record(&self, id: BackupId) -> Result<(), StorageError> {
        let touched = Statement::<D>::new(&DELETE).bind(id.0).execute(self.writer()).await?;
        steps::deleted(touched, id)
    }

    async fn list_backups(&self, before_id: Option<BackupId>, limit: u32) -> Result<Vec<BackupRecord>, StorageError> {
        let rows = Statement::<D>::new(&LIST_PAGE)
            .bind(before_id.map(|b| b.0))
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(record_from_row).collect()
    }

    async fn get_backup(&self, id: BackupId) -> Result<BackupRecord, StorageError> {
        let row = Statement::<D>::new(&ONE)
            .bind(id.0)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| StorageError::not_found("backup", id))?;
        record_from_row(&row)
    }

    async fn unfinished_backups(&self) -> Result<Vec<BackupRecord>, StorageError> {
        let rows = Statement::<D>::new(&UNFINISHED).fetch_all(self.reader()).await?;
        rows.iter().map(record_from_row).collect()
    }

    async fn expired_backups(&self, now: OffsetDateTime, limit: u32) -> Result<Vec<BackupRecord>, StorageError> {
        let rows = Statement::<D>::new(&EXPIRED)
            .bind(now)
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(record_from_row).collect()
    }
}
