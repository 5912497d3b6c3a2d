//! The migration runner both dialects share: re-verifying what `_sqlx_migrations` records against
//! the embedded set, reporting what a run applied, and mapping the migrator's errors. Each adapter
//! reads the recorded rows with its own SQL and runs sqlx's migrator on its own pool.

use std::collections::HashMap;

use sqlx::migrate::{MigrateError, Migrator};

use gateway_core::ports::StorageError;

use crate::postgres::{MigrationReport, MigrationSet, StoreError};
use crate::row_columns::RowColumns;

/// Recorded migrations by version: (checksum, success).
pub(crate) type Recorded = HashMap<i64, (Vec<u8>, bool)>;

/// One `_sqlx_migrations` row (`version, checksum, success`).
pub(crate) fn recorded_from_row(row: &impl RowColumns) -> Result<(i64, (Vec<u8>, bool)), StorageError> {
    Ok((row.col("version")?, (row.col("checksum")?, row.col("success")?)))
}

pub(crate) fn recorded_from_rows<R: RowColumns>(rows: &[R]) -> Result<Recorded, StoreError> {
    rows.iter().map(recorded_from_row).collect::<Result<_, _>>().map_err(StoreError::Storage)
}

/// The migrator for `set`, once every recorded migration is known, clean and unchanged.
pub(crate) fn verified_migrator(set: &MigrationSet, recorded: &Recorded) -> Result<Migrator, StoreError> {
    let migrator = set.migrator();
    for (version, (checksum, success)) in recorded {
        let Some(migration) = migrator.iter().find(|m| m.version == *version) else {
            return Err(StoreError::MigrationUnknown { version: *version });
        };
        if !success {
            return Err(StoreError::MigrationDirty { version: *version });
        }
        if migration.checksum.as_ref() != checksum.as_slice() {
            return Err(StoreError::MigrationModified { version: *version, file: set.file_name(*version) });
        }
    }
    Ok(migrator)
}

/// What a successful run did, given what was recorded before it.
pub(crate) fn report(set: &MigrationSet, recorded: &Recorded) -> MigrationReport {
    let applied = set
        .files()
        .iter()
        .filter(|file| !recorded.contains_key(&file.version))
        .map(|f| f.file_name.to_string())
        .collect();
    MigrationReport { applied, verified: recorded.len() }
}

pub(crate) fn migrate_error(
    err: MigrateError,
    set: &MigrationSet,
    storage_error: fn(sqlx::Error) -> StorageError,
) -> StoreError {
    match err {
        MigrateError::VersionMismatch(version) => {
            StoreError::MigrationModified { version, file: set.file_name(version) }
        }
        MigrateError::VersionMissing(version) => StoreError::MigrationUnknown { version },
        MigrateError::Dirty(version) => StoreError::MigrationDirty { version },
        MigrateError::ExecuteMigration(source, version) => {
            StoreError::MigrationFailed { file: set.file_name(version), reason: source.to_string() }
        }
        MigrateError::Execute(source) => StoreError::Storage(storage_error(source)),
        other => StoreError::MigrationFailed { file: "(migrator)".to_owned(), reason: other.to_string() },
    }
}
