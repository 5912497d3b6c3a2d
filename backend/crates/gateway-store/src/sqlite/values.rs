//! SQLite encodings (decision 0181): timestamps as unix microseconds, JSON documents as text,
//! and `row.col(..)` with errors mapped to [`StorageError`].

use sqlx::sqlite::SqliteRow;
use time::OffsetDateTime;

use gateway_core::ports::StorageError;

use crate::postgres::error_mapping::corrupt;
use crate::sqlite::error_mapping::storage_error;

/// A timestamp as stored: unix microseconds (sub-microsecond digits are dropped).
pub(crate) fn micros(at: OffsetDateTime) -> i64 {
    i64::try_from(at.unix_timestamp_nanos().div_euclid(1_000)).unwrap_or(i64::MAX)
}

pub(crate) fn opt_micros(at: Option<OffsetDateTime>) -> Option<i64> {
    at.map(micros)
}

/// Now, as stored.
pub(crate) fn now_micros() -> i64 {
    micros(OffsetDateTime::now_utc())
}

pub(crate) fn from_micros(value: i64, column: &str) -> Result<OffsetDateTime, StorageError> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(value) * 1_000).map_err(|e| corrupt(column, e))
}

/// A JSON document as stored text.
pub(crate) fn json_text(value: &serde_json::Value) -> String {
    value.to_string()
}

/// `row.col("name")`, `row.ts("name")`, `row.json("name")`.
pub(crate) trait SqliteColumns {
    fn col<'r, T>(&'r self, name: &str) -> Result<T, StorageError>
    where
        T: sqlx::Decode<'r, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite>;

    fn ts(&self, name: &str) -> Result<OffsetDateTime, StorageError> {
        from_micros(self.col(name)?, name)
    }

    fn opt_ts(&self, name: &str) -> Result<Option<OffsetDateTime>, StorageError> {
        self.col::<Option<i64>>(name)?.map(|v| from_micros(v, name)).transpose()
    }

    fn json(&self, name: &str) -> Result<serde_json::Value, StorageError> {
        let text: String = self.col(name)?;
        serde_json::from_str(&text).map_err(|e| corrupt(name, e))
    }

    fn opt_json(&self, name: &str) -> Result<Option<serde_json::Value>, StorageError> {
        let text: Option<String> = self.col(name)?;
        text.map(|t| serde_json::from_str(&t).map_err(|e| corrupt(name, e))).transpose()
    }
}

impl SqliteColumns for SqliteRow {
    fn col<'r, T>(&'r self, name: &str) -> Result<T, StorageError>
    where
        T: sqlx::Decode<'r, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite>,
    {
        sqlx::Row::try_get(self, name).map_err(storage_error)
    }
}

/// A `json_group_array` of ids, sorted ascending.
pub(crate) fn sorted_ids(row: &SqliteRow, name: &str) -> Result<Vec<i64>, StorageError> {
    let mut ids: Vec<i64> = serde_json::from_value(row.json(name)?).map_err(|e| corrupt(name, e))?;
    ids.sort_unstable();
    Ok(ids)
}

/// An optional JSON array of strings (`client_api_keys.allowed_models`).
pub(crate) fn opt_string_list(row: &SqliteRow, name: &str) -> Result<Option<Vec<String>>, StorageError> {
    row.opt_json(name)?.map(|v| serde_json::from_value(v).map_err(|e| corrupt(name, e))).transpose()
}
