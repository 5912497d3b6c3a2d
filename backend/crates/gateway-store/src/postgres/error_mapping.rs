//! sqlx errors → [`StorageError`]. Only SQLSTATE codes and constraint names are used: PostgreSQL's
//! DETAIL text (which can echo stored values) is never copied into an error.

use gateway_core::ports::{ConstraintKind, StorageError};

pub(crate) fn storage_error(err: sqlx::Error) -> StorageError {
    match err {
        sqlx::Error::Database(db) => {
            let code = db.code().map(|c| c.into_owned()).unwrap_or_default();
            let constraint = db.constraint().map(str::to_owned).unwrap_or_else(|| code.clone());
            match code.as_str() {
                "23505" => StorageError::Conflict { constraint },
                "23503" => StorageError::Constraint { kind: ConstraintKind::ForeignKey, constraint },
                "23514" => StorageError::Constraint { kind: ConstraintKind::Check, constraint },
                "23502" => StorageError::Constraint { kind: ConstraintKind::NotNull, constraint },
                "23P01" => StorageError::Conflict { constraint },
                c if c.starts_with("22") => StorageError::Constraint { kind: ConstraintKind::InvalidValue, constraint },
                "40001" | "40P01" => StorageError::Unavailable(format!("transaction must be retried ({code})")),
                c if c.starts_with("08") || c.starts_with("53") || c.starts_with("57") => {
                    StorageError::Unavailable(format!("database unavailable ({code})"))
                }
                _ => StorageError::Internal(format!("database error {code}: {}", db.message())),
            }
        }
        sqlx::Error::RowNotFound => StorageError::Internal("expected a row, found none".to_owned()),
        sqlx::Error::PoolTimedOut => {
            StorageError::Unavailable("timed out waiting for a database connection".to_owned())
        }
        sqlx::Error::PoolClosed => StorageError::Unavailable("the database pool is closed".to_owned()),
        sqlx::Error::Io(e) => StorageError::Unavailable(format!("database I/O: {e}")),
        sqlx::Error::Tls(_) => StorageError::Unavailable("database TLS failure".to_owned()),
        sqlx::Error::WorkerCrashed => StorageError::Unavailable("database worker crashed".to_owned()),
        sqlx::Error::ColumnDecode { index, source } => {
            StorageError::Corrupt(format!("column {index} cannot be decoded: {source}"))
        }
        sqlx::Error::Decode(source) => StorageError::Corrupt(format!("value cannot be decoded: {source}")),
        other => StorageError::Internal(other.to_string()),
    }
}

/// A connection error for operators, without the URL (which may hold a password).
pub(crate) fn describe_connect_error(err: &sqlx::Error) -> String {
    match err {
        sqlx::Error::Configuration(_) => "the database URL is invalid".to_owned(),
        sqlx::Error::Database(db) => format!("{} ({})", db.message(), db.code().unwrap_or_default()),
        other => other.to_string(),
    }
}

/// A value that does not fit the column (e.g. a `u64` above `i64::MAX`).
pub(crate) fn out_of_range(column: &str) -> StorageError {
    StorageError::Constraint { kind: ConstraintKind::InvalidValue, constraint: column.to_owned() }
}

/// A stored value outside the closed set this binary knows.
pub(crate) fn corrupt(column: &str, detail: impl std::fmt::Display) -> StorageError {
    StorageError::Corrupt(format!("{column}: {detail}"))
}
