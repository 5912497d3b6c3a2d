//! The PostgreSQL adapter: [`PgStore`] is `SqlStore<Postgres>` (one connection pool and the
//! keyring); the ports it shares with SQLite are implemented once in `sql/` (decision 0344), the
//! request log, ops-event insert, usage queries and migrations are PostgreSQL's own, here.
//!
//! Start-up, as the composition root runs it (`switchboard serve` and `switchboard migrate`):
//!
//! ```text
//! let store = gateway_store::postgres::connect(url, max_connections).await?   // StoreError
//!     .with_keyring(Keyring::from_config(master_key, retired)?);
//! let report = store.migrate().await?;   // applies pending, re-verifies applied checksums
//! store.ping().await?;                   // readiness
//! ```
//!
//! All SQL is runtime SQL (no macros, no database at build time); rows are mapped by hand.

pub(crate) mod column_values;
pub(crate) mod error_mapping;
pub(crate) mod migrations;
mod ops_events;
pub(crate) mod requests;
pub(crate) mod sealing;
mod store_error;
pub(crate) mod usage_queries;
mod usage_rows;

use std::time::Duration;

use sqlx::postgres::{PgPool, PgPoolOptions};

use gateway_core::ports::StorageError;

use crate::sql::store::SqlStore;

pub use crate::sql::admin_transaction::SqlAdminTransaction;

/// The admin unit of work on PostgreSQL.
pub type PgAdminTransaction = SqlAdminTransaction<sqlx::Postgres>;
pub use crate::sql::key_rotation::{ResealBatch, ResealCounts, ResealReport, SealedKind, SecretsReseal};
pub use migrations::{MigrationFile, MigrationReport, MigrationSet};
pub use store_error::{StoreError, StoreErrorKind};

/// How long acquiring a pooled connection may take before the call fails as `Unavailable`.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// Connects a pool to `url` (at most `max_connections`), failing fast if the server cannot be
/// reached. The store has no keyring yet: add one with [`PgStore::with_keyring`] before using
/// credential ports (without it they fail as `Misconfigured`).
pub async fn connect(url: &str, max_connections: u32) -> Result<PgStore, StoreError> {
    let pool = PgPoolOptions::new()
        .max_connections(max_connections.max(1))
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect(url)
        .await
        .map_err(|e| StoreError::Connect(error_mapping::describe_connect_error(&e)))?;
    Ok(PgStore::from_pool(pool))
}

/// The PostgreSQL store: one pool for reads and writes.
pub type PgStore = SqlStore<sqlx::Postgres>;

impl PgStore {
    pub fn from_pool(pool: PgPool) -> Self {
        SqlStore::with_pools(pool.clone(), pool)
    }

    pub fn pool(&self) -> &PgPool {
        &self.writer
    }

    /// Applies pending embedded migrations and re-verifies the checksums of applied ones.
    pub async fn migrate(&self) -> Result<MigrationReport, StoreError> {
        self.migrate_with(&MigrationSet::embedded()).await
    }

    /// Same as [`migrate`](Self::migrate) with an explicit migration set.
    pub async fn migrate_with(&self, set: &MigrationSet) -> Result<MigrationReport, StoreError> {
        migrations::run(&self.writer, set).await
    }

    /// Readiness: one round trip.
    pub async fn ping(&self) -> Result<(), StorageError> {
        sqlx::query("SELECT 1").execute(&self.writer).await.map_err(error_mapping::storage_error)?;
        Ok(())
    }

    /// Closes the pool, waiting for checked-out connections to return.
    pub async fn close(&self) {
        self.writer.close().await;
    }
}
