//! The SQLite migrations (`migrations/sqlite/`), embedded and applied with sqlx's migrator like
//! the PostgreSQL ones: applied migrations are frozen, a changed or unknown one refuses start-up.

use std::collections::HashMap;

use sqlx::Row;
use sqlx::migrate::MigrateError;
use sqlx::sqlite::SqlitePool;

use crate::postgres::{MigrationFile, MigrationReport, MigrationSet, StoreError};
use crate::sqlite::error_mapping::storage_error;

/// The SQLite migrations this binary ships, in order. A new migration is a new file and a line here.
const EMBEDDED: &[(&str, &str)] = &[
    ("0001_initial.sql", include_str!("../../../../../migrations/sqlite/0001_initial.sql")),
    ("0002_backup_verification.sql", include_str!("../../../../../migrations/sqlite/0002_backup_verification.sql")),
    ("0003_service_tier_policy.sql", include_str!("../../../../../migrations/sqlite/0003_service_tier_policy.sql")),
    ("0004_egress_proxies.sql", include_str!("../../../../../migrations/sqlite/0004_egress_proxies.sql")),
    ("0005_alert_webhooks.sql", include_str!("../../../../../migrations/sqlite/0005_alert_webhooks.sql")),
];

pub(crate) fn embedded() -> MigrationSet {
    MigrationSet::new(EMBEDDED.iter().filter_map(|(name, sql)| MigrationFile::new(*name, *sql)).collect())
}

pub(crate) async fn run(pool: &SqlitePool, set: &MigrationSet) -> Result<MigrationReport, StoreError> {
    let migrator = set.migrator();
    let recorded = applied_checksums(pool).await?;
    for (version, (checksum, success)) in &recorded {
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
    migrator.run(pool).await.map_err(|e| migrate_error(e, set))?;
    let applied = set
        .files()
        .iter()
        .filter(|file| !recorded.contains_key(&file.version))
        .map(|f| f.file_name.to_string())
        .collect();
    Ok(MigrationReport { applied, verified: recorded.len() })
}

async fn applied_checksums(pool: &SqlitePool) -> Result<HashMap<i64, (Vec<u8>, bool)>, StoreError> {
    let exists: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations')",
    )
    .fetch_one(pool)
    .await
    .map_err(storage_error)?;
    if !exists {
        return Ok(HashMap::new());
    }
    let rows = sqlx::query("SELECT version, checksum, success FROM _sqlx_migrations ORDER BY version")
        .fetch_all(pool)
        .await
        .map_err(storage_error)?;
    rows.iter()
        .map(|row| {
            let version: i64 = row.try_get("version")?;
            let checksum: Vec<u8> = row.try_get("checksum")?;
            let success: bool = row.try_get("success")?;
            Ok((version, (checksum, success)))
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(|e| StoreError::Storage(storage_error(e)))
}

fn migrate_error(err: MigrateError, set: &MigrationSet) -> StoreError {
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
