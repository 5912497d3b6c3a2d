//! Moving up: copies an embedded install's SQLite file into a migrated, empty PostgreSQL
//! database, table by table, and compares the row counts (decision 0188).
//!
//! ```text
//! let report = gateway_store::transfer::sqlite_to_postgres(sqlite_path, pg_store.pool()).await?;
//! for table in &report.tables { println!("{} {} -> {}", table.name, table.source_rows, table.copied_rows) }
//! ```
//!
//! The tables, their columns and types come from the PostgreSQL schema (the target decides);
//! each SQLite value is converted by its target column's type (`convert`), and rows are
//! inserted in foreign-key order (`order`), ids included, in **one** transaction: either every
//! row of every table arrives (counts equal) or nothing is committed. Sealed secrets are copied
//! as they are: the target must be opened with the same master key.

mod convert;
mod order;

use std::path::Path;

use sqlx::postgres::PgPool;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use sqlx::{Column, Row};

/// Rows per INSERT statement.
const BATCH: usize = 500;
/// PostgreSQL's own bookkeeping, never copied (the target is migrated by its own migrations).
const SKIPPED: &[&str] = &["_sqlx_migrations"];
/// Tables whose one row the migrations insert; the copy replaces it.
const SEEDED: &[&str] = &["runtime_settings", "backup_settings", "alert_rules"];
/// Tables that must be empty in the target (a database already in use is refused).
const MUST_BE_EMPTY: &[&str] = &["provider_accounts", "client_api_keys", "admin_users", "model_requests"];

#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error("cannot open the SQLite file {path}: {reason}")]
    Source { path: String, reason: String },
    #[error("the target database already holds data (table {0} is not empty): move into a new, empty database")]
    TargetNotEmpty(String),
    #[error("table {0} exists in the SQLite file but not in PostgreSQL; nothing was copied")]
    MissingTable(String),
    #[error("table {table}: column {column} exists in the SQLite file but not in PostgreSQL; nothing was copied")]
    MissingColumn { table: String, column: String },
    #[error("table {table}, column {column}: {reason}")]
    Value { table: String, column: String, reason: String },
    #[error("table {table}: {source_rows} rows in the SQLite file, {copied_rows} in PostgreSQL; nothing was copied")]
    CountMismatch { table: String, source_rows: i64, copied_rows: i64 },
    #[error("{0}")]
    Database(String),
}

fn db(error: sqlx::Error) -> TransferError {
    TransferError::Database(error.to_string())
}

/// One table's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCopy {
    pub name: String,
    pub source_rows: i64,
    pub copied_rows: i64,
}

#[derive(Debug, Clone, Default)]
pub struct TransferReport {
    pub tables: Vec<TableCopy>,
}

/// Opens `path` read-only.
pub async fn open_source(path: &Path) -> Result<SqlitePool, TransferError> {
    let options = SqliteConnectOptions::new().filename(path).read_only(true).create_if_missing(false);
    SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options)
        .await
        .map_err(|e| TransferError::Source { path: path.display().to_string(), reason: e.to_string() })
}

/// Copies every table of the SQLite file at `source` into `target` (already migrated).
pub async fn sqlite_to_postgres(source: &Path, target: &PgPool) -> Result<TransferReport, TransferError> {
    let sqlite = open_source(source).await?;
    let outcome = copy_all(&sqlite, target).await;
    sqlite.close().await;
    outcome
}

async fn copy_all(sqlite: &SqlitePool, target: &PgPool) -> Result<TransferReport, TransferError> {
    for table in MUST_BE_EMPTY {
        let sql = format!("SELECT EXISTS (SELECT 1 FROM {table})");
        let used: bool = sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).fetch_one(target).await.map_err(db)?;
        if used {
            return Err(TransferError::TargetNotEmpty((*table).to_owned()));
        }
    }
    let tables = order::tables_in_dependency_order(target).await?;
    let source_tables = source_table_names(sqlite).await?;
    // A table only the SQLite file has would be lost: refuse before copying anything.
    for name in &source_tables {
        if !tables.contains(name) && !is_sqlite_internal(name) {
            return Err(TransferError::MissingTable(name.clone()));
        }
    }
    let mut tx = target.begin().await.map_err(db)?;
    let mut report = TransferReport::default();
    for table in tables.iter().filter(|t| !SKIPPED.contains(&t.as_str())) {
        if !source_tables.contains(table) {
            continue;
        }
        if SEEDED.contains(&table.as_str()) {
            sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {table}"))).execute(&mut *tx).await.map_err(db)?;
        }
        let columns = convert::target_columns(&mut tx, table).await?;
        let source_rows = copy_table(sqlite, &mut tx, table, &columns).await?;
        let sql = format!("SELECT count(*) FROM {table}");
        let copied_rows: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).fetch_one(&mut *tx).await.map_err(db)?;
        if copied_rows != source_rows {
            return Err(TransferError::CountMismatch { table: table.clone(), source_rows, copied_rows });
        }
        convert::reset_identities(&mut tx, table, &columns).await?;
        report.tables.push(TableCopy { name: table.clone(), source_rows, copied_rows });
    }
    tx.commit().await.map_err(db)?;
    Ok(report)
}

fn is_sqlite_internal(name: &str) -> bool {
    name.starts_with("sqlite_") || name.starts_with('_')
}

async fn source_table_names(sqlite: &SqlitePool) -> Result<Vec<String>, TransferError> {
    sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .fetch_all(sqlite)
        .await
        .map_err(db)
}

/// Copies one table in batches; returns the rows read.
async fn copy_table(
    sqlite: &SqlitePool,
    tx: &mut sqlx::PgConnection,
    table: &str,
    columns: &[convert::TargetColumn],
) -> Result<i64, TransferError> {
    let rows =
        sqlx::query(sqlx::AssertSqlSafe(format!("SELECT * FROM \"{table}\""))).fetch_all(sqlite).await.map_err(db)?;
    let Some(first) = rows.first() else { return Ok(0) };
    let names: Vec<String> = first.columns().iter().map(|c| c.name().to_owned()).collect();
    let mut mapped = Vec::with_capacity(names.len());
    for name in &names {
        let column = columns
            .iter()
            .find(|c| &c.name == name)
            .ok_or_else(|| TransferError::MissingColumn { table: table.to_owned(), column: name.clone() })?;
        mapped.push(column);
    }
    let list = names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
    let overriding = if columns.iter().any(|c| c.identity_always) { "OVERRIDING SYSTEM VALUE " } else { "" };
    let sql = format!(
        "INSERT INTO {table} ({list}) {overriding}SELECT {list} FROM jsonb_populate_recordset(NULL::{table}, $1)"
    );
    for chunk in rows.chunks(BATCH) {
        let mut batch = Vec::with_capacity(chunk.len());
        for row in chunk {
            let mut object = serde_json::Map::new();
            for (index, column) in mapped.iter().enumerate() {
                let value = convert::value(row, index, column).map_err(|reason| TransferError::Value {
                    table: table.to_owned(),
                    column: column.name.clone(),
                    reason,
                })?;
                object.insert(column.name.clone(), value);
            }
            batch.push(serde_json::Value::Object(object));
        }
        sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
            .bind(serde_json::Value::Array(batch))
            .execute(&mut *tx)
            .await
            .map_err(db)?;
    }
    Ok(i64::try_from(rows.len()).unwrap_or(i64::MAX))
}
