//! [`BackupJobs`](gateway_admin::ports::BackupJobs): backup settings (read side) and the record
//! lifecycle. At most one job is active at a time: the partial unique index
//! `backup_records_one_active_key` decides races. (Embedded mode has no `pg_dump` to run; the
//! records and settings behave as in production.) The body is one for both dialects
//! (`sql_shared::backup_jobs`); below are SQLite's own statements and encodings.

use time::OffsetDateTime;

use gateway_admin::backup::{BackupRecord, BackupTrigger, RowCounts};
use gateway_core::ports::StorageError;

use crate::postgres::error_mapping::corrupt;
use crate::rows::backups::{record_columns, record_from_row};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::{micros as ts, now_micros, opt_micros};

const CLAIM_QUEUED: &str = concat!(
    "UPDATE backup_records SET state = 'dumping', started_at = $1, updated_at = $1 \
     WHERE id = (SELECT id FROM backup_records WHERE state = 'queued' ORDER BY id LIMIT 1) RETURNING ",
    record_columns!()
);

const ADVANCE: &str = concat!(
    "UPDATE backup_records SET state = $2, object_key = COALESCE($4, object_key), \
     size_bytes = COALESCE($5, size_bytes), sha256 = COALESCE($6, sha256), \
     error_code = COALESCE($7, error_code), error_message = COALESCE($8, error_message), \
     finished_at = CASE WHEN $9 THEN $10 ELSE finished_at END, updated_at = $10, \
     upload_id = CASE WHEN $9 THEN NULL ELSE upload_id END \
     WHERE id = $1 AND state IN (SELECT value FROM json_each($3)) RETURNING ",
    record_columns!()
);

const UPDATE_TRANSFER: &str = "UPDATE backup_records SET upload_id = COALESCE($2, upload_id), \
     bytes_done = MAX(bytes_done, $3), row_counts = COALESCE($4, row_counts), updated_at = $5 \
     WHERE id = $1 AND state IN ('dumping', 'uploading')";

const LIST_PAGE: &str = concat!(
    "SELECT ",
    record_columns!(),
    " FROM backup_records WHERE ($1 IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"
);

/// The accepted states as a JSON array for `json_each`.
fn state_list(states: Vec<&'static str>) -> String {
    serde_json::Value::from(states).to_string()
}

fn counts_value(counts: Option<&RowCounts>) -> Result<Option<String>, StorageError> {
    counts.map(serde_json::to_string).transpose().map_err(|e| corrupt("backup_records.row_counts", e))
}

async fn enqueue(
    store: &SqliteStore,
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
    .fetch_one(store.writer())
    .await
    .map_err(storage_error)?;
    record_from_row(&row)
}

crate::sql_shared::backup_jobs::sql_backup_jobs!(SqliteStore, reader, writer);
