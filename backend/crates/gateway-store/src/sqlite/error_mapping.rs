//! sqlx SQLite errors → [`StorageError`], with the same kinds and, where SQLite names them,
//! the same constraint names as the PostgreSQL adapter. SQLite's messages name constraints and
//! columns, never values.

use gateway_core::ports::{ConstraintKind, StorageError};
use sqlx::error::ErrorKind;

/// Uniqueness rules SQLite reports by their columns, named as PostgreSQL names them.
const UNIQUE_BY_COLUMNS: &[(&str, &str)] = &[
    ("client_api_keys.key_hash", "client_api_keys_key_hash_key"),
    ("provider_accounts.provider, provider_accounts.external_account_id", "provider_accounts_external_key"),
    ("account_group_accounts.group_id, account_group_accounts.account_id", "account_group_accounts_pkey"),
    ("client_api_key_groups.client_key_id, client_api_key_groups.group_id", "client_api_key_groups_pkey"),
    ("model_requests.id", "model_requests_pkey"),
    ("admin_users.api_key_hash", "admin_users_api_key_hash_key"),
];

/// The constraint a message names: `… failed: index 'x'`, `… failed: x`, or the columns.
fn constraint_of(message: &str) -> String {
    let named = message.split_once("failed: ").map_or(message, |(_, rest)| rest).trim();
    if let Some(index) = named.strip_prefix("index '").and_then(|rest| rest.strip_suffix('\'')) {
        return index.to_owned();
    }
    UNIQUE_BY_COLUMNS
        .iter()
        .find(|(columns, _)| *columns == named)
        .map_or_else(|| named.to_owned(), |(_, n)| (*n).to_owned())
}

pub(crate) fn storage_error(err: sqlx::Error) -> StorageError {
    match err {
        sqlx::Error::Database(db) => {
            let code: i64 = db.code().and_then(|c| c.parse().ok()).unwrap_or_default();
            let message = db.message().to_owned();
            // `ON DELETE RESTRICT` reports itself with the trigger code, by this message.
            let restrict = message.starts_with("FOREIGN KEY constraint failed");
            match db.kind() {
                _ if restrict => {
                    return StorageError::Constraint {
                        kind: ConstraintKind::ForeignKey,
                        constraint: "foreign_key".to_owned(),
                    };
                }
                ErrorKind::UniqueViolation => return StorageError::Conflict { constraint: constraint_of(&message) },
                ErrorKind::ForeignKeyViolation => {
                    return StorageError::Constraint {
                        kind: ConstraintKind::ForeignKey,
                        constraint: "foreign_key".to_owned(),
                    };
                }
                ErrorKind::NotNullViolation => {
                    return StorageError::Constraint {
                        kind: ConstraintKind::NotNull,
                        constraint: constraint_of(&message),
                    };
                }
                ErrorKind::CheckViolation => {
                    return StorageError::Constraint {
                        kind: ConstraintKind::Check,
                        constraint: constraint_of(&message),
                    };
                }
                _ => {}
            }
            match code {
                // SQLITE_CONSTRAINT_TRIGGER: a RAISE(ABORT, 'name: …') in a trigger.
                1811 => StorageError::Constraint {
                    kind: ConstraintKind::Check,
                    constraint: message.split(':').next().unwrap_or_default().to_owned(),
                },
                // SQLITE_TOOBIG, SQLITE_MISMATCH, SQLITE_RANGE
                18 | 20 | 25 => StorageError::Constraint { kind: ConstraintKind::InvalidValue, constraint: message },
                // SQLITE_BUSY / SQLITE_LOCKED and their extended codes: retry later.
                c if c & 0xff == 5 || c & 0xff == 6 => {
                    StorageError::Unavailable(format!("database is busy (sqlite {c})"))
                }
                // SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_PROTOCOL
                c if matches!(c & 0xff, 10 | 13 | 14 | 15) => {
                    StorageError::Unavailable(format!("database unavailable (sqlite {c})"))
                }
                c => StorageError::Internal(format!("database error {c}: {message}")),
            }
        }
        sqlx::Error::RowNotFound => StorageError::Internal("expected a row, found none".to_owned()),
        sqlx::Error::PoolTimedOut => {
            StorageError::Unavailable("timed out waiting for a database connection".to_owned())
        }
        sqlx::Error::PoolClosed => StorageError::Unavailable("the database pool is closed".to_owned()),
        sqlx::Error::Io(e) => StorageError::Unavailable(format!("database I/O: {e}")),
        sqlx::Error::WorkerCrashed => StorageError::Unavailable("database worker crashed".to_owned()),
        sqlx::Error::ColumnDecode { index, source } => {
            StorageError::Corrupt(format!("column {index} cannot be decoded: {source}"))
        }
        sqlx::Error::Decode(source) => StorageError::Corrupt(format!("value cannot be decoded: {source}")),
        other => StorageError::Internal(other.to_string()),
    }
}

/// An open error for operators (the path is the operator's own configuration, not a secret).
pub(crate) fn describe_open_error(err: &sqlx::Error) -> String {
    match err {
        sqlx::Error::Database(db) => format!("{} (sqlite {})", db.message(), db.code().unwrap_or_default()),
        other => other.to_string(),
    }
}
