//! Errors of connecting and migrating (the start-up boundary of the store).

use gateway_core::ports::StorageError;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot connect to PostgreSQL: {0}")]
    Connect(String),
    #[error("cannot open the SQLite database: {0}")]
    Open(String),
    #[error(
        "migration {file} was applied to this database but its file has changed since (checksum \
         mismatch); applied migrations are frozen: restore the file and add a new migration instead"
    )]
    MigrationModified { version: i64, file: String },
    #[error(
        "migration version {version} is applied to this database but unknown to this binary (was a \
         newer version started on it?); refusing to start"
    )]
    MigrationUnknown { version: i64 },
    #[error("migration version {version} is recorded as partially applied; repair the database first")]
    MigrationDirty { version: i64 },
    #[error("migration {file} failed: {reason}")]
    MigrationFailed { file: String, reason: String },
    #[error(transparent)]
    Storage(#[from] StorageError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoreErrorKind {
    Connect,
    MigrationModified,
    MigrationUnknown,
    MigrationDirty,
    MigrationFailed,
    Storage,
}

impl StoreError {
    pub fn kind(&self) -> StoreErrorKind {
        match self {
            Self::Connect(_) | Self::Open(_) => StoreErrorKind::Connect,
            Self::MigrationModified { .. } => StoreErrorKind::MigrationModified,
            Self::MigrationUnknown { .. } => StoreErrorKind::MigrationUnknown,
            Self::MigrationDirty { .. } => StoreErrorKind::MigrationDirty,
            Self::MigrationFailed { .. } => StoreErrorKind::MigrationFailed,
            Self::Storage(_) => StoreErrorKind::Storage,
        }
    }
}
