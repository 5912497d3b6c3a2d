//! PostgreSQL backups: `pg_dump -Fc` inside an exported snapshot (row counts taken in the same
//! snapshot), its stdout streamed into the multipart upload; restores stream the object into
//! `pg_restore --exit-on-error --single-transaction` (no local copy either way).

use std::process::Stdio;

use async_trait::async_trait;
use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use gateway_admin::backup::RowCounts;
use gateway_admin::ports::BackupFailure;

use super::pg_url::PgUrl;
use super::s3::{MultipartUpload, ObjectReader};
use super::source::{DumpSource, RestoreMode};

const CHUNK: usize = 256 * 1024;
const STDERR_LIMIT: usize = 1800;

/// The gateway's database, the server used for scratch databases (a role that may
/// `CREATE DATABASE`) and where the client tools are (`pg_dump`, `pg_restore`).
#[derive(Debug, Clone)]
pub struct PostgresSource {
    database: PgUrl,
    scratch_server: PgUrl,
    bin_dir: Option<std::path::PathBuf>,
    dump_args: Vec<String>,
}

fn failure(code: &str, what: &str, e: impl std::fmt::Display) -> BackupFailure {
    BackupFailure::new(code, format!("{what}: {e}"))
}

impl PostgresSource {
    /// `scratch_server_url`: a database on the server where verification may create and drop
    /// scratch databases (defaults to `database_url`'s server).
    pub fn new(database_url: &str, scratch_server_url: Option<&str>) -> Result<Self, BackupFailure> {
        let bad = || BackupFailure::new("config", "the database URL is not a postgres:// URL");
        let database = PgUrl::parse(database_url).ok_or_else(bad)?;
        let scratch_server = match scratch_server_url {
            Some(url) => PgUrl::parse(url).ok_or_else(bad)?,
            None => database.without_query(),
        };
        Ok(Self { database, scratch_server, bin_dir: None, dump_args: Vec::new() })
    }

    /// Where `pg_dump`/`pg_restore` live (default: `PATH`).
    pub fn with_bin_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.bin_dir = Some(dir.into());
        self
    }

    /// Extra `pg_dump` arguments (for example `--exclude-table-data=…`).
    pub fn with_dump_args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.dump_args = args.into_iter().map(Into::into).collect();
        self
    }

    fn tool(&self, name: &str) -> Command {
        let program = self.bin_dir.as_ref().map_or_else(|| name.into(), |dir| dir.join(name));
        let mut command = Command::new(program);
        command.kill_on_drop(true).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        command
    }

    async fn connect(url: &PgUrl) -> Result<PgConnection, BackupFailure> {
        PgConnection::connect(&url.full_url()).await.map_err(|e| failure("database", "connecting", e))
    }

    async fn restore_stream(&self, url: &PgUrl, reader: &mut ObjectReader) -> Result<(), BackupFailure> {
        let mut command = self.tool("pg_restore");
        command
            .args(["--exit-on-error", "--single-transaction", "--no-owner", "--no-acl", "--no-password"])
            .arg(format!("--dbname={}", url.public_url()))
            .stdin(Stdio::piped());
        url.apply_password(&mut command);
        let mut child = command.spawn().map_err(|e| failure("pg_restore", "starting pg_restore", e))?;
        let mut stdin = child.stdin.take().ok_or_else(|| BackupFailure::new("pg_restore", "no stdin"))?;
        let mut stderr = child.stderr.take().ok_or_else(|| BackupFailure::new("pg_restore", "no stderr"))?;
        let pump = async {
            while let Some(chunk) = reader.next_chunk().await? {
                if stdin.write_all(&chunk).await.is_err() {
                    break; // pg_restore stopped early: its exit status and stderr say why
                }
            }
            drop(stdin);
            Ok::<(), BackupFailure>(())
        };
        let mut errors = Vec::new();
        let (pumped, _) = tokio::join!(pump, stderr.read_to_end(&mut errors));
        let status = child.wait().await.map_err(|e| failure("pg_restore", "waiting for pg_restore", e))?;
        pumped?;
        if !status.success() {
            return Err(BackupFailure::new("pg_restore", tail(&errors, status)));
        }
        Ok(())
    }
}

fn tail(stderr: &[u8], status: std::process::ExitStatus) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    let start = text.len().saturating_sub(STDERR_LIMIT);
    let start = (start..text.len()).find(|i| text.is_char_boundary(*i)).unwrap_or(text.len());
    format!("{status}: {}", &text[start..])
}

/// Rows per table of every user schema, `schema.table`, in the connection's snapshot.
pub(crate) async fn row_counts(conn: &mut PgConnection) -> Result<RowCounts, BackupFailure> {
    let tables: Vec<(String, String)> = sqlx::query_as(
        "SELECT n.nspname::text, c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') \
         AND n.nspname NOT LIKE 'pg\\_%' ORDER BY 1, 2",
    )
    .fetch_all(&mut *conn)
    .await
    .map_err(|e| failure("database", "listing tables", e))?;
    let mut counts = RowCounts::new();
    for (schema, table) in tables {
        let sql = format!("SELECT count(*) FROM {}.{}", quote(&schema), quote(&table));
        let (count,): (i64,) = sqlx::query_as(AssertSqlSafe(sql))
            .fetch_one(&mut *conn)
            .await
            .map_err(|e| failure("database", "counting rows", e))?;
        counts.insert(format!("{schema}.{table}"), u64::try_from(count).unwrap_or(0));
    }
    Ok(counts)
}

fn quote(identifier: &str) -> String {
    format!("\"{}\"", identifier.replace('"', "\"\""))
}

fn major_of(version_line: &str) -> Option<u32> {
    let number = version_line.split_whitespace().find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))?;
    number.split('.').next()?.parse().ok()
}

#[async_trait]
impl DumpSource for PostgresSource {
    fn extension(&self) -> &'static str {
        "dump"
    }

    async fn preflight(&self) -> Result<(), BackupFailure> {
        let output =
            self.tool("pg_dump").arg("--version").output().await.map_err(|e| {
                failure("pg_version", "running pg_dump --version (is the PostgreSQL client installed?)", e)
            })?;
        let line = String::from_utf8_lossy(&output.stdout).into_owned();
        let client = major_of(&line)
            .ok_or_else(|| BackupFailure::new("pg_version", format!("unreadable pg_dump version {line:?}")))?;
        let mut conn = Self::connect(&self.database).await?;
        let (server,): (String,) = sqlx::query_as("SHOW server_version_num")
            .fetch_one(&mut conn)
            .await
            .map_err(|e| failure("database", "reading the server version", e))?;
        let server: u32 = server.trim().parse::<u32>().map(|n| n / 10_000).unwrap_or(0);
        if client < server {
            return Err(BackupFailure::new(
                "pg_version",
                format!(
                    "pg_dump {client} cannot dump a PostgreSQL {server} server: install the PostgreSQL {server} client (or newer)"
                ),
            ));
        }
        Ok(())
    }

    async fn dump(&self, upload: &mut MultipartUpload<'_>) -> Result<RowCounts, BackupFailure> {
        let mut conn = Self::connect(&self.database).await?;
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .await
            .map_err(|e| failure("database", "opening the snapshot", e))?;
        let (snapshot,): (String,) = sqlx::query_as("SELECT pg_export_snapshot()")
            .fetch_one(&mut conn)
            .await
            .map_err(|e| failure("database", "exporting the snapshot", e))?;
        let counts = row_counts(&mut conn).await?;
        let mut command = self.tool("pg_dump");
        command
            .args(["--format=custom", "--no-password"])
            .arg(format!("--snapshot={snapshot}"))
            .args(&self.dump_args)
            .arg(format!("--dbname={}", self.database.public_url()));
        self.database.apply_password(&mut command);
        let mut child = command.spawn().map_err(|e| failure("pg_dump", "starting pg_dump", e))?;
        let mut stdout = child.stdout.take().ok_or_else(|| BackupFailure::new("pg_dump", "no stdout"))?;
        let mut stderr = child.stderr.take().ok_or_else(|| BackupFailure::new("pg_dump", "no stderr"))?;
        let pump = async {
            let mut buffer = vec![0u8; CHUNK];
            loop {
                let n = stdout.read(&mut buffer).await.map_err(|e| failure("pg_dump", "reading pg_dump", e))?;
                if n == 0 {
                    return Ok::<(), BackupFailure>(());
                }
                upload.write(&buffer[..n]).await?;
            }
        };
        let mut errors = Vec::new();
        let (pumped, _) = tokio::join!(pump, stderr.read_to_end(&mut errors));
        if let Err(e) = pumped {
            let _ = child.kill().await;
            return Err(e);
        }
        let status = child.wait().await.map_err(|e| failure("pg_dump", "waiting for pg_dump", e))?;
        if !status.success() {
            return Err(BackupFailure::new("pg_dump", tail(&errors, status)));
        }
        conn.execute("COMMIT").await.map_err(|e| failure("database", "closing the snapshot", e))?;
        Ok(counts)
    }

    async fn restore(&self, reader: &mut ObjectReader, mode: RestoreMode<'_>) -> Result<RowCounts, BackupFailure> {
        match mode {
            RestoreMode::Scratch => {
                let name = format!("switchboard_verify_{}", uuid::Uuid::new_v4().simple());
                let mut admin = Self::connect(&self.scratch_server).await?;
                admin
                    .execute(AssertSqlSafe(format!("CREATE DATABASE {}", quote(&name))))
                    .await
                    .map_err(|e| failure("scratch", "creating the scratch database", e))?;
                let url = self.scratch_server.with_database(&name);
                let result = async {
                    self.restore_stream(&url, reader).await?;
                    row_counts(&mut Self::connect(&url).await?).await
                }
                .await;
                let dropped =
                    admin.execute(AssertSqlSafe(format!("DROP DATABASE {} WITH (FORCE)", quote(&name)))).await;
                if let Err(e) = dropped {
                    tracing::warn!(database = %name, error = %e, "dropping a scratch database failed");
                }
                result
            }
            RestoreMode::Into { destination, allow_non_empty } => {
                let url = PgUrl::parse(destination)
                    .ok_or_else(|| BackupFailure::new("config", "the destination is not a postgres:// URL"))?;
                let existing = row_counts(&mut Self::connect(&url).await?).await?;
                if !existing.is_empty() && !allow_non_empty {
                    return Err(BackupFailure::new(
                        "not_empty",
                        format!(
                            "the database {} already has {} tables; restore into an empty database or confirm",
                            url.database(),
                            existing.len()
                        ),
                    ));
                }
                self.restore_stream(&url, reader).await?;
                row_counts(&mut Self::connect(&url).await?).await
            }
        }
    }
}
