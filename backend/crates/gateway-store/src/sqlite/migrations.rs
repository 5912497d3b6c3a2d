//! The SQLite migrations (`migrations/sqlite/`), embedded and applied with sqlx's migrator like
//! the PostgreSQL ones: applied migrations are frozen, a changed or unknown one refuses start-up.

use sqlx::sqlite::SqlitePool;

use crate::postgres::{MigrationFile, MigrationReport, MigrationSet, StoreError};
use crate::sql_shared::migration_runner::{Recorded, migrate_error, recorded_from_rows, report, verified_migrator};
use crate::sqlite::error_mapping::storage_error;

/// The SQLite migrations this binary ships, in order. A new migration is a new file and a line here.
const EMBEDDED: &[(&str, &str)] = &[
    ("0001_initial.sql", include_str!("../../../../../migrations/sqlite/0001_initial.sql")),
    ("0002_backup_verification.sql", include_str!("../../../../../migrations/sqlite/0002_backup_verification.sql")),
    ("0003_service_tier_policy.sql", include_str!("../../../../../migrations/sqlite/0003_service_tier_policy.sql")),
    ("0004_egress_proxies.sql", include_str!("../../../../../migrations/sqlite/0004_egress_proxies.sql")),
    ("0005_alert_webhooks.sql", include_str!("../../../../../migrations/sqlite/0005_alert_webhooks.sql")),
    ("0006_account_cookies.sql", include_str!("../../../../../migrations/sqlite/0006_account_cookies.sql")),
];

pub(crate) fn embedded() -> MigrationSet {
    MigrationSet::new(EMBEDDED.iter().filter_map(|(name, sql)| MigrationFile::new(*name, *sql)).collect())
}

pub(crate) async fn run(pool: &SqlitePool, set: &MigrationSet) -> Result<MigrationReport, StoreError> {
    let recorded = applied_checksums(pool).await?;
    let migrator = verified_migrator(set, &recorded)?;
    migrator.run(pool).await.map_err(|e| migrate_error(e, set, storage_error))?;
    Ok(report(set, &recorded))
}

async fn applied_checksums(pool: &SqlitePool) -> Result<Recorded, StoreError> {
    let exists: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations')",
    )
    .fetch_one(pool)
    .await
    .map_err(storage_error)?;
    if !exists {
        return Ok(Recorded::new());
    }
    let rows = sqlx::query("SELECT version, checksum, success FROM _sqlx_migrations ORDER BY version")
        .fetch_all(pool)
        .await
        .map_err(storage_error)?;
    recorded_from_rows(&rows)
}
