//! Numbered SQL migrations, embedded in the binary, applied at start-up through sqlx's migrator
//! (table `_sqlx_migrations`, advisory lock against concurrent replicas). Applied migrations are
//! frozen: before applying anything the recorded checksum of every applied migration is compared
//! with the embedded file, and start-up is refused with the file's name on a mismatch.

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::PgPool;
use sqlx::{AssertSqlSafe, SqlSafeStr};

use crate::postgres::error_mapping::storage_error;
use crate::postgres::store_error::StoreError;
use crate::sql_shared::migration_runner::{Recorded, migrate_error, recorded_from_rows, report, verified_migrator};

/// The migrations this binary ships, in order. A new migration is a new file and a new line here.
const EMBEDDED: &[(&str, &str)] = &[
    ("0001_initial.sql", include_str!("../../../../../migrations/0001_initial.sql")),
    ("0004_request_runner.sql", include_str!("../../../../../migrations/0004_request_runner.sql")),
    ("0007_backup_verification.sql", include_str!("../../../../../migrations/0007_backup_verification.sql")),
    ("0008_service_tier_policy.sql", include_str!("../../../../../migrations/0008_service_tier_policy.sql")),
    ("0010_alert_webhooks.sql", include_str!("../../../../../migrations/0010_alert_webhooks.sql")),
    ("0011_egress_proxies.sql", include_str!("../../../../../migrations/0011_egress_proxies.sql")),
    ("0012_account_cookies.sql", include_str!("../../../../../migrations/0012_account_cookies.sql")),
];

/// One migration file: `NNNN_description.sql`, version `NNNN`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationFile {
    pub version: i64,
    pub file_name: Cow<'static, str>,
    pub sql: Cow<'static, str>,
}

impl MigrationFile {
    /// Parses the version from the file name's numeric prefix; `None` if it has none.
    pub fn new(file_name: impl Into<Cow<'static, str>>, sql: impl Into<Cow<'static, str>>) -> Option<Self> {
        let file_name = file_name.into();
        let digits: String = file_name.chars().take_while(char::is_ascii_digit).collect();
        let version = digits.parse::<i64>().ok()?;
        Some(Self { version, file_name, sql: sql.into() })
    }

    fn description(&self) -> String {
        let stem = self.file_name.trim_end_matches(".sql");
        stem.split_once('_').map_or(stem, |(_, rest)| rest).replace('_', " ")
    }
}

/// An ordered set of migrations.
#[derive(Debug, Clone)]
pub struct MigrationSet {
    files: Vec<MigrationFile>,
}

impl MigrationSet {
    /// The migrations embedded from `migrations/` at build time.
    pub fn embedded() -> Self {
        Self::new(EMBEDDED.iter().filter_map(|(name, sql)| MigrationFile::new(*name, *sql)).collect())
    }

    pub fn new(mut files: Vec<MigrationFile>) -> Self {
        files.sort_by_key(|file| file.version);
        Self { files }
    }

    pub fn files(&self) -> &[MigrationFile] {
        &self.files
    }

    pub(crate) fn file_name(&self, version: i64) -> String {
        self.files
            .iter()
            .find(|file| file.version == version)
            .map_or_else(|| format!("version {version}"), |file| file.file_name.to_string())
    }

    pub(crate) fn migrator(&self) -> Migrator {
        let migrations = self
            .files
            .iter()
            .map(|file| {
                Migration::new(
                    file.version,
                    Cow::Owned(file.description()),
                    MigrationType::Simple,
                    AssertSqlSafe(file.sql.clone()).into_sql_str(),
                    false,
                )
            })
            .collect();
        Migrator::with_migrations(migrations)
    }
}

/// What a successful [`run`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationReport {
    /// File names applied by this run, in order.
    pub applied: Vec<String>,
    /// How many previously applied migrations had their checksum re-verified.
    pub verified: usize,
}

pub(crate) async fn run(pool: &PgPool, set: &MigrationSet) -> Result<MigrationReport, StoreError> {
    let recorded = applied_checksums(pool).await?;
    let migrator = verified_migrator(set, &recorded)?;
    migrator.run(pool).await.map_err(|e| migrate_error(e, set, storage_error))?;
    Ok(report(set, &recorded))
}

async fn applied_checksums(pool: &PgPool) -> Result<Recorded, StoreError> {
    let exists: bool = sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
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
