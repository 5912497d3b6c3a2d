//! PostgreSQL: native timestamps, UUIDs, `JSONB` and arrays.

use sqlx::Postgres;

use gateway_core::ports::StorageError;

use super::{Dialect, DialectQuery};
use crate::postgres::error_mapping::storage_error;
use crate::sql::{Arg, Sql};

impl Dialect for Postgres {
    fn text(sql: &Sql) -> &'static str {
        sql.postgres
    }

    fn storage_error(err: sqlx::Error) -> StorageError {
        storage_error(err)
    }

    fn bind(query: DialectQuery<Self>, arg: Arg<'_>) -> DialectQuery<Self> {
        match arg {
            Arg::Int8(v) => query.bind(v),
            Arg::Int4(v) => query.bind(v),
            Arg::Float(v) => query.bind(v),
            Arg::Bool(v) => query.bind(v),
            Arg::Text(v) => query.bind(v.as_deref()),
            Arg::Bytes(v) => query.bind(v.as_deref()),
            Arg::Time(v) => query.bind(v),
            Arg::Uuid(v) => query.bind(v),
            Arg::Json(v) => query.bind(v),
            Arg::Ids(v) => query.bind(v),
            Arg::Texts(v) => query.bind(v),
        }
    }

    super::driver_calls!();
}
