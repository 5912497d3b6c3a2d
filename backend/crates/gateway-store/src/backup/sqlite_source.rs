//! Embedded-mode backups: an online copy with `VACUUM INTO` (a consistent snapshot while the
//! gateway keeps writing) in a 0700 staging directory, row counts read from that copy, then the
//! same multipart flow. Restores download into staging, run `PRAGMA integrity_check` and count.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};
use sqlx::{AssertSqlSafe, ConnectOptions, Connection, SqliteConnection};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use gateway_admin::backup::RowCounts;
use gateway_admin::ports::BackupFailure;

use super::s3::{MultipartUpload, ObjectReader};
use super::source::{DumpSource, RestoreMode};
use super::staging::StagingDir;

const CHUNK: usize = 1024 * 1024;

/// The embedded store's pool and where staging directories go.
#[derive(Debug, Clone)]
pub struct SqliteSource {
    pool: SqlitePool,
    staging_parent: PathBuf,
}

fn failure(code: &str, what: &str, e: impl std::fmt::Display) -> BackupFailure {
    BackupFailure::new(code, format!("{what}: {e}"))
}

impl SqliteSource {
    pub fn new(pool: SqlitePool, staging_parent: impl Into<PathBuf>) -> Self {
        Self { pool, staging_parent: staging_parent.into() }
    }
}

async fn open(path: &Path, read_only: bool) -> Result<SqliteConnection, BackupFailure> {
    SqliteConnectOptions::new()
        .filename(path)
        .read_only(read_only)
        .create_if_missing(false)
        .disable_statement_logging()
        .connect()
        .await
        .map_err(|e| failure("sqlite", &format!("opening {}", path.display()), e))
}

/// Rows per table of a SQLite file (internal `sqlite_*` tables left out).
pub(crate) async fn file_row_counts(path: &Path) -> Result<RowCounts, BackupFailure> {
    let mut conn = open(path, true).await?;
    let (check,): (String,) = sqlx::query_as("PRAGMA integrity_check")
        .fetch_one(&mut conn)
        .await
        .map_err(|e| failure("sqlite", "integrity check", e))?;
    if check != "ok" {
        return Err(BackupFailure::new("sqlite_integrity", check));
    }
    let tables: Vec<(String,)> = sqlx::query_as(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .fetch_all(&mut conn)
    .await
    .map_err(|e| failure("sqlite", "listing tables", e))?;
    let mut counts = RowCounts::new();
    for (table,) in tables {
        let sql = format!("SELECT count(*) FROM \"{}\"", table.replace('"', "\"\""));
        let (count,): (i64,) = sqlx::query_as(AssertSqlSafe(sql))
            .fetch_one(&mut conn)
            .await
            .map_err(|e| failure("sqlite", "counting rows", e))?;
        counts.insert(table, u64::try_from(count).unwrap_or(0));
    }
    conn.close().await.map_err(|e| failure("sqlite", "closing", e))?;
    Ok(counts)
}

async fn download(reader: &mut ObjectReader, path: &Path) -> Result<(), BackupFailure> {
    let mut file = tokio::fs::File::create(path).await.map_err(|e| failure("staging", "creating the download", e))?;
    while let Some(chunk) = reader.next_chunk().await? {
        file.write_all(&chunk).await.map_err(|e| failure("staging", "writing the download", e))?;
    }
    file.sync_all().await.map_err(|e| failure("staging", "syncing the download", e))
}

#[async_trait]
impl DumpSource for SqliteSource {
    fn extension(&self) -> &'static str {
        "sqlite"
    }

    fn staging_parent(&self) -> Option<&Path> {
        Some(&self.staging_parent)
    }

    async fn preflight(&self) -> Result<(), BackupFailure> {
        Ok(())
    }

    async fn dump(&self, upload: &mut MultipartUpload<'_>) -> Result<RowCounts, BackupFailure> {
        let staging = StagingDir::create(&self.staging_parent)?;
        let copy = staging.file("copy.sqlite");
        let path = copy.to_str().ok_or_else(|| BackupFailure::new("staging", "the staging path is not UTF-8"))?;
        sqlx::query(AssertSqlSafe(format!("VACUUM INTO '{}'", path.replace('\'', "''"))))
            .execute(&self.pool)
            .await
            .map_err(|e| failure("sqlite", "VACUUM INTO", e))?;
        let counts = file_row_counts(&copy).await?;
        let mut file = tokio::fs::File::open(&copy).await.map_err(|e| failure("staging", "opening the copy", e))?;
        let mut buffer = vec![0u8; CHUNK];
        loop {
            let n = file.read(&mut buffer).await.map_err(|e| failure("staging", "reading the copy", e))?;
            if n == 0 {
                return Ok(counts);
            }
            upload.write(&buffer[..n]).await?;
        }
    }

    async fn restore(&self, reader: &mut ObjectReader, mode: RestoreMode<'_>) -> Result<RowCounts, BackupFailure> {
        match mode {
            RestoreMode::Scratch => {
                let staging = StagingDir::create(&self.staging_parent)?;
                let path = staging.file("scratch.sqlite");
                download(reader, &path).await?;
                file_row_counts(&path).await
            }
            RestoreMode::Into { destination, allow_non_empty } => {
                let destination = PathBuf::from(destination);
                if destination.exists() && !allow_non_empty {
                    return Err(BackupFailure::new(
                        "not_empty",
                        format!("{} exists; restore to a new file or confirm", destination.display()),
                    ));
                }
                let parent = destination.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                let staging = StagingDir::create(parent)?;
                let path = staging.file("restore.sqlite");
                download(reader, &path).await?;
                let counts = file_row_counts(&path).await?;
                tokio::fs::rename(&path, &destination)
                    .await
                    .map_err(|e| failure("restore", &format!("moving into {}", destination.display()), e))?;
                Ok(counts)
            }
        }
    }
}
