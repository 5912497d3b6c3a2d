//! The one body of [`BackupJobs`](gateway_admin::ports::BackupJobs) for both SQL adapters. Each
//! adapter module invokes [`sql_backup_jobs!`] with its store type and its read and write pool
//! methods; what differs between the dialects is the invoking module's own:
//!
//! - the statements that are not the same text: `CLAIM_QUEUED` (PostgreSQL skips locked rows),
//!   `ADVANCE` (`= ANY($3)` vs `json_each($3)`), `UPDATE_TRANSFER` (`GREATEST` vs `MAX`),
//!   `LIST_PAGE` (a typed `$1`), and `enqueue(store, trigger, expires_at)` (SQLite binds the
//!   creation time PostgreSQL takes from `now()`);
//! - the bound encodings: `ts`, `opt_ts` (timestamps), `state_list` (the accepted states),
//!   `counts_value` (the row counts document); and `storage_error`.
//!
//! Rows are mapped by `rows::backups`, results shaped by `sql_shared::backup_steps`.

/// `sql_backup_jobs!(Store, reader_pool_method, writer_pool_method)`.
macro_rules! sql_backup_jobs {
    ($store:ident, $reader:ident, $writer:ident) => {
        #[async_trait::async_trait]
        impl gateway_admin::ports::BackupJobs for $store {
            async fn read_backup_settings(&self) -> Result<gateway_admin::backup::BackupSettings, StorageError> {
                let row = sqlx::query(
                    "SELECT enabled, endpoint, region, bucket, path_style, prefix, credentials_ciphertext IS NOT NULL \
                     AS has_credentials, schedule_cron, retention_count, retention_days, schedule_cursor_at, \
                     updated_at FROM backup_settings WHERE id = 1",
                )
                .fetch_optional(self.$reader())
                .await
                .map_err(storage_error)?
                .ok_or_else(|| {
                    $crate::postgres::error_mapping::corrupt("backup_settings", "the singleton row is missing")
                })?;
                $crate::rows::backups::settings_from_row(&row)
            }

            async fn read_backup_secrets(
                &self,
            ) -> Result<Option<gateway_admin::backup::BackupStorageSecrets>, StorageError> {
                let row = sqlx::query(
                    "SELECT credentials_ciphertext, credentials_key_id FROM backup_settings \
                     WHERE id = 1 AND credentials_ciphertext IS NOT NULL",
                )
                .fetch_optional(self.$reader())
                .await
                .map_err(storage_error)?;
                let Some(row) = row else { return Ok(None) };
                $crate::rows::backups::secrets_from_row(&row, self.keyring()?).map(Some)
            }

            async fn advance_backup_schedule(&self, cursor: time::OffsetDateTime) -> Result<(), StorageError> {
                sqlx::query("UPDATE backup_settings SET schedule_cursor_at = $1 WHERE id = 1")
                    .bind(ts(cursor))
                    .execute(self.$writer())
                    .await
                    .map_err(storage_error)?;
                Ok(())
            }

            async fn enqueue_backup(
                &self,
                trigger: gateway_admin::backup::BackupTrigger,
                expires_at: Option<time::OffsetDateTime>,
            ) -> Result<gateway_admin::backup::BackupRecord, StorageError> {
                enqueue(self, trigger, expires_at).await
            }

            async fn claim_queued_backup(
                &self,
                now: time::OffsetDateTime,
            ) -> Result<Option<gateway_admin::backup::BackupRecord>, StorageError> {
                let row = sqlx::query(CLAIM_QUEUED)
                    .bind(ts(now))
                    .fetch_optional(self.$writer())
                    .await
                    .map_err(storage_error)?;
                row.as_ref().map($crate::rows::backups::record_from_row).transpose()
            }

            async fn advance_backup(
                &self,
                id: gateway_admin::backup::BackupId,
                progress: gateway_admin::backup::BackupProgress,
                now: time::OffsetDateTime,
            ) -> Result<gateway_admin::backup::BackupRecord, StorageError> {
                use $crate::sql_shared::backup_steps as steps;
                let c = steps::progress_columns(&progress)?;
                let row = sqlx::query(ADVANCE)
                    .bind(id.0)
                    .bind(c.target)
                    .bind(state_list(c.from))
                    .bind(c.object_key)
                    .bind(c.size_bytes)
                    .bind(c.sha256)
                    .bind(c.error_code)
                    .bind(c.error_message)
                    .bind(c.terminal)
                    .bind(ts(now))
                    .fetch_optional(self.$writer())
                    .await
                    .map_err(storage_error)?;
                let updated = row.as_ref().map($crate::rows::backups::record_from_row).transpose()?;
                steps::updated_or(self, id, updated, steps::progress_conflict(&progress)).await
            }

            async fn update_backup_transfer(
                &self,
                id: gateway_admin::backup::BackupId,
                transfer: &gateway_admin::backup::BackupTransfer,
                now: time::OffsetDateTime,
            ) -> Result<(), StorageError> {
                use $crate::sql_shared::backup_steps as steps;
                let done = sqlx::query(UPDATE_TRANSFER)
                    .bind(id.0)
                    .bind(transfer.upload_id.as_deref())
                    .bind($crate::postgres::column_values::int8(transfer.bytes_done, "backup_records.bytes_done")?)
                    .bind(counts_value(transfer.row_counts.as_ref())?)
                    .bind(ts(now))
                    .execute(self.$writer())
                    .await
                    .map_err(storage_error)?;
                steps::touched_or(self, id, done.rows_affected(), steps::not_running()).await
            }

            async fn record_backup_verification(
                &self,
                id: gateway_admin::backup::BackupId,
                outcome: Result<(), String>,
                now: time::OffsetDateTime,
            ) -> Result<gateway_admin::backup::BackupRecord, StorageError> {
                use $crate::sql_shared::backup_steps as steps;
                let (verified, error) = steps::verification(&outcome);
                let row = sqlx::query(concat!(
                    "UPDATE backup_records SET verified_at = CASE WHEN $2 THEN $4 ELSE verified_at END, \
                     verify_error = $3, updated_at = $4 WHERE id = $1 AND state = 'completed' RETURNING ",
                    $crate::rows::backups::record_columns!()
                ))
                .bind(id.0)
                .bind(verified)
                .bind(error)
                .bind(ts(now))
                .fetch_optional(self.$writer())
                .await
                .map_err(storage_error)?;
                let updated = row.as_ref().map($crate::rows::backups::record_from_row).transpose()?;
                steps::updated_or(self, id, updated, steps::not_completed()).await
            }

            async fn delete_backup_record(&self, id: gateway_admin::backup::BackupId) -> Result<(), StorageError> {
                let done = sqlx::query("DELETE FROM backup_records WHERE id = $1")
                    .bind(id.0)
                    .execute(self.$writer())
                    .await
                    .map_err(storage_error)?;
                $crate::sql_shared::backup_steps::deleted(done.rows_affected(), id)
            }

            async fn list_backups(
                &self,
                before_id: Option<gateway_admin::backup::BackupId>,
                limit: u32,
            ) -> Result<Vec<gateway_admin::backup::BackupRecord>, StorageError> {
                let rows = sqlx::query(LIST_PAGE)
                    .bind(before_id.map(|b| b.0))
                    .bind($crate::postgres::column_values::int8(u64::from(limit), "limit")?)
                    .fetch_all(self.$reader())
                    .await
                    .map_err(storage_error)?;
                rows.iter().map($crate::rows::backups::record_from_row).collect()
            }

            async fn get_backup(
                &self,
                id: gateway_admin::backup::BackupId,
            ) -> Result<gateway_admin::backup::BackupRecord, StorageError> {
                let row = sqlx::query(concat!(
                    "SELECT ",
                    $crate::rows::backups::record_columns!(),
                    " FROM backup_records WHERE id = $1"
                ))
                .bind(id.0)
                .fetch_optional(self.$reader())
                .await
                .map_err(storage_error)?
                .ok_or_else(|| StorageError::not_found("backup", id))?;
                $crate::rows::backups::record_from_row(&row)
            }

            async fn unfinished_backups(&self) -> Result<Vec<gateway_admin::backup::BackupRecord>, StorageError> {
                let rows = sqlx::query(concat!(
                    "SELECT ",
                    $crate::rows::backups::record_columns!(),
                    " FROM backup_records WHERE state IN ('dumping', 'uploading', 'deleting') ORDER BY id"
                ))
                .fetch_all(self.$reader())
                .await
                .map_err(storage_error)?;
                rows.iter().map($crate::rows::backups::record_from_row).collect()
            }

            async fn expired_backups(
                &self,
                now: time::OffsetDateTime,
                limit: u32,
            ) -> Result<Vec<gateway_admin::backup::BackupRecord>, StorageError> {
                let rows = sqlx::query(concat!(
                    "SELECT ",
                    $crate::rows::backups::record_columns!(),
                    " FROM backup_records WHERE state IN ('completed', 'failed') AND expires_at <= $1 \
                     ORDER BY expires_at, id LIMIT $2"
                ))
                .bind(ts(now))
                .bind($crate::postgres::column_values::int8(u64::from(limit), "limit")?)
                .fetch_all(self.$reader())
                .await
                .map_err(storage_error)?;
                rows.iter().map($crate::rows::backups::record_from_row).collect()
            }
        }
    };
}
pub(crate) use sql_backup_jobs;
