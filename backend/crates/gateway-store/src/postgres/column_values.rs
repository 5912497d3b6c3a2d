//! Conversions between domain values and column values (unsigned domain integers vs signed
//! PostgreSQL integers, closed sets stored as text).

use std::str::FromStr;

use gateway_core::ports::StorageError;

use crate::postgres::error_mapping::{corrupt, out_of_range};

pub(crate) fn int4(value: u32, column: &str) -> Result<i32, StorageError> {
    i32::try_from(value).map_err(|_| out_of_range(column))
}

pub(crate) fn int8(value: u64, column: &str) -> Result<i64, StorageError> {
    i64::try_from(value).map_err(|_| out_of_range(column))
}

pub(crate) fn opt_int4(value: Option<u32>, column: &str) -> Result<Option<i32>, StorageError> {
    value.map(|v| int4(v, column)).transpose()
}

pub(crate) fn opt_int8(value: Option<u64>, column: &str) -> Result<Option<i64>, StorageError> {
    value.map(|v| int8(v, column)).transpose()
}

pub(crate) fn u32_of(value: i32, column: &str) -> Result<u32, StorageError> {
    u32::try_from(value).map_err(|_| corrupt(column, "negative value"))
}

pub(crate) fn u64_of(value: i64, column: &str) -> Result<u64, StorageError> {
    u64::try_from(value).map_err(|_| corrupt(column, "negative value"))
}

pub(crate) fn opt_u32_of(value: Option<i32>, column: &str) -> Result<Option<u32>, StorageError> {
    value.map(|v| u32_of(v, column)).transpose()
}

pub(crate) fn opt_u64_of(value: Option<i64>, column: &str) -> Result<Option<u64>, StorageError> {
    value.map(|v| u64_of(v, column)).transpose()
}

/// Parses a closed set stored as text.
pub(crate) fn closed<T: FromStr>(text: &str, column: &str) -> Result<T, StorageError>
where
    T::Err: std::fmt::Display,
{
    text.parse::<T>().map_err(|e| corrupt(column, e))
}

/// A 32-byte digest column.
pub(crate) fn digest(bytes: Vec<u8>, column: &str) -> Result<[u8; 32], StorageError> {
    bytes.as_slice().try_into().map_err(|_| corrupt(column, "expected 32 bytes"))
}

/// `row.col("name")`: `try_get` with the error already mapped to [`StorageError`].
pub(crate) trait ColumnRead {
    fn col<'r, T>(&'r self, name: &str) -> Result<T, StorageError>
    where
        T: sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>;
}

impl ColumnRead for sqlx::postgres::PgRow {
    fn col<'r, T>(&'r self, name: &str) -> Result<T, StorageError>
    where
        T: sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
    {
        sqlx::Row::try_get(self, name).map_err(crate::postgres::error_mapping::storage_error)
    }
}
