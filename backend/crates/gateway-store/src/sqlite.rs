//! The SQLite adapter for embedded mode (one replica, one file): [`SqliteStore`] is
//! `SqlStore<Sqlite>`; it implements the same storage ports as the PostgreSQL store (most of them
//! once, in `sql/`, decision 0344) and passes the same contract suites (`tests/storage_contract/`).
//!
//! Start-up, as the composition root runs it (mirrors `postgres::connect`):
//!
//! ```text
//! let store = gateway_store::sqlite::open(&data_dir.join("switchboard.sqlite3"), max_readers).await?  // StoreError
//!     .with_keyring(Keyring::from_config(master_key, retired)?);
//! let report = store.migrate().await?;   // applies pending migrations/sqlite/*, re-verifies checksums
//! store.ping().await?;                   // readiness
//! store.close().await;
//! ```
//!
//! - `open(path: &Path, max_readers: u32) -> Result<SqliteStore, StoreError>` creates the file if
//!   missing (its directory must exist), fails with `StoreError::Open` (kind `connect`) otherwise.
//! - Connections: WAL journal, `synchronous = NORMAL`, `foreign_keys = ON`, a 5 s busy timeout.
//!   **One writer** (a pool of exactly one connection: every write, and every admin unit of work,
//!   is serialised on it) and `max_readers` read-only connections (snapshot reads see committed
//!   data only).
//! - Only one process may use the file: the store does not enforce that itself; embedded mode's
//!   data-directory lock does.
//! - Encodings (decision 0181): timestamps as unix microseconds, JSON as text, UUIDs as 16-byte
//!   blobs.

pub(crate) mod error_mapping;
mod migrations;
mod ops_events;
mod request_rows;
mod request_statements;
mod requests;
mod usage_queries;
mod usage_rows;
pub(crate) mod values;

use std::path::Path;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use gateway_core::ports::StorageError;

use crate::postgres::{MigrationReport, MigrationSet, StoreError};
use crate::sql::store::SqlStore;

/// The admin unit of work on SQLite (on the single writer connection).
pub type SqliteAdminTransaction = crate::sql::admin_transaction::SqlAdminTransaction<sqlx::Sqlite>;

/// How long acquiring a pooled connection may take before the call fails as `Unavailable`.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a statement waits for a lock held by another connection.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Opens (creating if missing) the database file at `path` with one writer connection and up to
/// `max_readers` reader connections. The store has no keyring yet: add one with
/// [`SqliteStore::with_keyring`] before using credential ports.
pub async fn open(path: &Path, max_readers: u32) -> Result<SqliteStore, StoreError> {
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT);
    let writer = SqlitePoolOptions::new()
        .max_connections(1)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(options.clone())
        .await
        .map_err(|e| StoreError::Open(error_mapping::describe_open_error(&e)))?;
    let reader = SqlitePoolOptions::new()
        .max_connections(max_readers.max(1))
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(options.read_only(true).create_if_missing(false))
        .await
        .map_err(|e| StoreError::Open(error_mapping::describe_open_error(&e)))?;
    Ok(SqlStore::with_pools(reader, writer))
}

/// The SQLite migrations this binary embeds (`migrations/sqlite/`).
pub fn embedded_migrations() -> MigrationSet {
    migrations::embedded()
}

/// The SQLite store: one writer connection, `max_readers` read-only ones.
pub type SqliteStore = SqlStore<sqlx::Sqlite>;

impl SqliteStore {
    /// Applies pending embedded SQLite migrations and re-verifies the checksums of applied ones.
    pub async fn migrate(&self) -> Result<MigrationReport, StoreError> {
        self.migrate_with(&migrations::embedded()).await
    }

    /// Same as [`migrate`](Self::migrate) with an explicit migration set.
    pub async fn migrate_with(&self, set: &MigrationSet) -> Result<MigrationReport, StoreError> {
        migrations::run(self.writer(), set).await
    }

    /// Readiness: one round trip on a reader.
    pub async fn ping(&self) -> Result<(), StorageError> {
        sqlx::query("SELECT 1").execute(self.reader()).await.map_err(error_mapping::storage_error)?;
        Ok(())
    }

    /// Closes both pools, waiting for checked-out connections to return.
    pub async fn close(&self) {
        self.reader().close().await;
        self.writer().close().await;
    }
}
