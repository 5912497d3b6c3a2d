//! A SQLite value as the JSON `jsonb_populate_recordset` turns into the target column's type:
//! the embedded encodings (unix-microsecond timestamps, 0/1 booleans, JSON and arrays as text,
//! blobs) become what PostgreSQL parses for `timestamptz`, `boolean`, `jsonb`, arrays, `bytea`.

use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, TypeInfo, ValueRef};

use super::{TransferError, db};

/// One column of the target table.
#[derive(Debug, Clone)]
pub struct TargetColumn {
    pub name: String,
    /// `information_schema.columns.data_type` (`timestamp with time zone`, `ARRAY`, …).
    pub data_type: String,
    /// `GENERATED ALWAYS AS IDENTITY`: inserting ids needs `OVERRIDING SYSTEM VALUE`.
    pub identity_always: bool,
    pub identity: bool,
}

pub async fn target_columns(tx: &mut sqlx::PgConnection, table: &str) -> Result<Vec<TargetColumn>, TransferError> {
    let rows: Vec<(String, String, String, Option<String>)> = sqlx::query_as(
        "SELECT column_name::text, data_type::text, is_identity::text, identity_generation::text \
         FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 \
         ORDER BY ordinal_position",
    )
    .bind(table)
    .fetch_all(&mut *tx)
    .await
    .map_err(db)?;
    Ok(rows
        .into_iter()
        .map(|(name, data_type, is_identity, generation)| TargetColumn {
            name,
            data_type,
            identity: is_identity == "YES",
            identity_always: generation.as_deref() == Some("ALWAYS"),
        })
        .collect())
}

/// After explicit ids were inserted, the identity continues above the largest.
pub async fn reset_identities(
    tx: &mut sqlx::PgConnection,
    table: &str,
    columns: &[TargetColumn],
) -> Result<(), TransferError> {
    for column in columns.iter().filter(|c| c.identity) {
        let sql = format!(
            "SELECT setval(pg_get_serial_sequence('{table}', '{name}'), COALESCE((SELECT max(\"{name}\") FROM {table}), 0) + 1, false)",
            name = column.name
        );
        sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&mut *tx).await.map_err(db)?;
    }
    Ok(())
}

/// The value at `index` of `row`, for `column`.
pub fn value(row: &SqliteRow, index: usize, column: &TargetColumn) -> Result<Value, String> {
    let raw = row.try_get_raw(index).map_err(|e| e.to_string())?;
    if raw.is_null() {
        return Ok(Value::Null);
    }
    let storage = raw.type_info().name().to_owned();
    match (storage.as_str(), column.data_type.as_str()) {
        ("INTEGER", "timestamp with time zone") => {
            let micros: i64 = row.try_get(index).map_err(|e| e.to_string())?;
            timestamp(micros).map(Value::String)
        }
        ("INTEGER", "boolean") => Ok(Value::Bool(row.try_get::<i64, _>(index).map_err(|e| e.to_string())? != 0)),
        ("INTEGER", _) => Ok(Value::from(row.try_get::<i64, _>(index).map_err(|e| e.to_string())?)),
        ("REAL", _) => Ok(Value::from(row.try_get::<f64, _>(index).map_err(|e| e.to_string())?)),
        ("TEXT", "jsonb" | "json" | "ARRAY") => {
            let text: String = row.try_get(index).map_err(|e| e.to_string())?;
            serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))
        }
        ("TEXT", _) => Ok(Value::String(row.try_get(index).map_err(|e| e.to_string())?)),
        ("BLOB", "uuid") => {
            let bytes: Vec<u8> = row.try_get(index).map_err(|e| e.to_string())?;
            uuid::Uuid::from_slice(&bytes).map(|u| Value::String(u.to_string())).map_err(|e| e.to_string())
        }
        ("BLOB", _) => {
            let bytes: Vec<u8> = row.try_get(index).map_err(|e| e.to_string())?;
            Ok(Value::String(bytea(&bytes)))
        }
        (other, target) => Err(format!("cannot convert a SQLite {other} value to {target}")),
    }
}

/// Unix microseconds as RFC 3339 with all six fraction digits (PostgreSQL keeps microseconds).
fn timestamp(micros: i64) -> Result<String, String> {
    let at = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1000).map_err(|e| e.to_string())?;
    let format =
        time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:6]Z");
    at.format(&format).map_err(|e| e.to_string())
}

/// `bytea`'s hex input form.
fn bytea(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(2 + bytes.len() * 2);
    text.push_str("\\x");
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}
