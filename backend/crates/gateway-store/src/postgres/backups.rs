//! [`BackupJobs`](gateway_admin::ports::BackupJobs): backup settings (read side) and the record
//! lifecycle. At most one job is active at a time: the partial unique index
//! `backup_records_one_active_key` decides races. The body is one for both dialects
//! (`sql_shared::backup_jobs`); below are PostgreSQL's own statements and encodings.

use time::OffsetDateTime;

use gateway_admin::backup::{BackupRecord, BackupTrigger, RowCounts};
use gateway_core::ports::StorageError;

use crate::postgres::PgStore;
use crate::postgres::column_values::timestamp as ts;
use crate::postgres::error_mapping::storage_error;
use crate::rows::backups::{record_columns, record_from_row};

const CLAIM_QUEUED: &str = concat!(
    "UPDATE backup_records SET state = 'dumping', started_at = $1, updated_at = $1 \
     WHERE id = (SELECT id FROM backup_records WHERE state = 'queued' ORDER BY id LIMIT 1 \
                 FOR UPDATE SKIP LOCKED) RETURNING ",
    record_columns!()
);

const ADVANCE: &str = concat!(
    "UPDATE backup_records SET state = $2, object_key = COALESCE($4, object_key), \
     size_bytes = COALESCE($5, size_bytes), sha256 = COALESCE($6, sha256), \
     error_code = COALESCE($7, error_code), error_message = COALESCE($8, error_message), \
     finished_at = CASE WHEN $9 THEN $10 ELSE finished_at END, updated_at = $10, \
     upload_id = CASE WHEN $9 THEN NULL ELSE upload_id END \
     WHERE id = $1 AND state = ANY($3) RETURNING ",
    record_columns!()
);

const UPDATE_TRANSFER: &str = "UPDATE backup_records SET upload_id = COALESCE($2, upload_id), \
     bytes_done = GREATEST(bytes_done, $3), row_counts = COALESCE($4, row_counts), updated_at = $5 \
     WHERE id = $1 AND state IN ('dumping', 'uploading')";

const LIST_PAGE: &str = concat!(
    "SELECT ",
    record_columns!(),
    " FROM backup_records WHERE ($1::bigint IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"
);

fn state_list(states: Vec<&'static str>) -> Vec<&'static str> {
    states
}

fn counts_value(counts: Option<&RowCounts>) -> Result<Option<sqlx::types::Json<&RowCounts>>, StorageError> {
    Ok(counts.map(sqlx::types::Json))
}

async fn enqueue(
    store: &PgStore,
    trigger: BackupTrigger,
    expires_at: Option<OffsetDateTime>,
) -> Result<BackupRecord, StorageError> {
    let row = sqlx::query(concat!(
        "INSERT INTO backup_records (\"trigger\", expires_at) VALUES ($1, $2) RETURNING ",
        record_columns!()
    ))
    .bind(trigger.as_str())
    .bind(expires_at)
    .fetch_one(store.pool())
    .await
    .map_err(storage_error)?;
    record_from_row(&row)
}

crate::sql_shared::backup_jobs::sql_backup_jobs!(PgStore, pool, pool);
