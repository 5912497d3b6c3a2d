//! Reading a row's columns the same way from PostgreSQL and SQLite, so each row mapper is written
//! once (`rows/`). The dialects differ only in how timestamps and JSON documents are stored
//! (decision 0181: SQLite keeps unix microseconds and JSON text); everything else decodes alike.

use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{Decode, Postgres, Sqlite, Type};
use time::OffsetDateTime;

use gateway_core::ports::StorageError;

use crate::postgres::error_mapping::corrupt;

/// A column type both drivers decode the same way.
pub(crate) trait Portable<'r>:
    Decode<'r, Postgres> + Type<Postgres> + Decode<'r, Sqlite> + Type<Sqlite>
{
}

impl<'r, T> Portable<'r> for T where T: Decode<'r, Postgres> + Type<Postgres> + Decode<'r, Sqlite> + Type<Sqlite> {}

/// `row.col("name")`, `row.ts("name")`, `row.json("name")` for either dialect, with errors
/// mapped to [`StorageError`].
pub(crate) trait RowColumns {
    fn col<'r, T: Portable<'r>>(&'r self, name: &str) -> Result<T, StorageError>;

    fn opt_ts(&self, name: &str) -> Result<Option<OffsetDateTime>, StorageError>;

    fn opt_json(&self, name: &str) -> Result<Option<serde_json::Value>, StorageError>;

    fn ts(&self, name: &str) -> Result<OffsetDateTime, StorageError> {
        self.opt_ts(name)?.ok_or_else(|| corrupt(name, "unexpected NULL"))
    }

    fn json(&self, name: &str) -> Result<serde_json::Value, StorageError> {
        self.opt_json(name)?.ok_or_else(|| corrupt(name, "unexpected NULL"))
    }

    /// A list of ids, ascending (PostgreSQL: an ordered `array_agg`; SQLite: a `json_group_array`).
    fn ids(&self, name: &str) -> Result<Vec<i64>, StorageError>;

    /// An optional list of strings (PostgreSQL: `TEXT[]`; SQLite: a JSON array).
    fn opt_strings(&self, name: &str) -> Result<Option<Vec<String>>, StorageError>;

    /// An optional JSON document decoded as `T`.
    fn opt_json_as<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<Option<T>, StorageError> {
        self.opt_json(name)?.map(|v| serde_json::from_value(v).map_err(|e| corrupt(name, e))).transpose()
    }
}

impl RowColumns for PgRow {
    fn col<'r, T: Portable<'r>>(&'r self, name: &str) -> Result<T, StorageError> {
        sqlx::Row::try_get::<T, _>(self, name).map_err(crate::postgres::error_mapping::storage_error)
    }

    fn opt_ts(&self, name: &str) -> Result<Option<OffsetDateTime>, StorageError> {
        sqlx::Row::try_get(self, name).map_err(crate::postgres::error_mapping::storage_error)
    }

    fn opt_json(&self, name: &str) -> Result<Option<serde_json::Value>, StorageError> {
        sqlx::Row::try_get(self, name).map_err(crate::postgres::error_mapping::storage_error)
    }

    fn ids(&self, name: &str) -> Result<Vec<i64>, StorageError> {
        sqlx::Row::try_get(self, name).map_err(crate::postgres::error_mapping::storage_error)
    }

    fn opt_strings(&self, name: &str) -> Result<Option<Vec<String>>, StorageError> {
        sqlx::Row::try_get(self, name).map_err(crate::postgres::error_mapping::storage_error)
    }
}

impl RowColumns for SqliteRow {
    fn col<'r, T: Portable<'r>>(&'r self, name: &str) -> Result<T, StorageError> {
        sqlx::Row::try_get::<T, _>(self, name).map_err(crate::sqlite::error_mapping::storage_error)
    }

    fn opt_ts(&self, name: &str) -> Result<Option<OffsetDateTime>, StorageError> {
        crate::sqlite::values::SqliteColumns::opt_ts(self, name)
    }

    fn opt_json(&self, name: &str) -> Result<Option<serde_json::Value>, StorageError> {
        crate::sqlite::values::SqliteColumns::opt_json(self, name)
    }

    fn ids(&self, name: &str) -> Result<Vec<i64>, StorageError> {
        crate::sqlite::values::sorted_ids(self, name)
    }

    fn opt_strings(&self, name: &str) -> Result<Option<Vec<String>>, StorageError> {
        crate::sqlite::values::opt_string_list(self, name)
    }
}
