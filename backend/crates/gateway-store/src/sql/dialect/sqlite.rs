//! SQLite (decision 0181): timestamps as unix microseconds, JSON documents, id lists and string
//! lists as JSON text, UUIDs as 16-byte blobs.

use sqlx::Sqlite;

use gateway_core::ports::StorageError;

use super::{Dialect, DialectQuery};
use crate::sql::{Arg, Sql};
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::{json_text, opt_micros};

impl Dialect for Sqlite {
    fn text(sql: &Sql) -> &'static str {
        sql.sqlite
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
            Arg::Time(v) => query.bind(opt_micros(v)),
            Arg::Uuid(v) => query.bind(v),
            Arg::Json(v) => query.bind(v.as_ref().map(json_text)),
            Arg::Ids(v) => query.bind(serde_json::Value::from(v).to_string()),
            Arg::Texts(v) => query.bind(v.map(|items| serde_json::Value::from(items).to_string())),
        }
    }

    super::driver_calls!();
}
