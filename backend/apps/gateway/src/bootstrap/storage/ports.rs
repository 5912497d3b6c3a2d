//! The two halves every storage mode provides, as one trait object each: the facts (every
//! storage port of `gateway-core` and `gateway-admin`: PostgreSQL or SQLite) and the
//! coordination (every coordination port: Redis or the in-process adapter). Wiring takes the
//! port it needs from them by upcasting (`Arc<dyn Facts>` → `Arc<dyn UnitOfWork>`).

use async_trait::async_trait;
use gateway_admin::ports::{
    AccountDirectory, AdminSessions, AuditSearch, AuditTrail, BackupJobs, ClientKeyDirectory, GroupDirectory,
    InFlightCounts, LoginThrottle, OpsEventQueries, RuntimeSettingsReader, UnitOfWork, UsageQueries,
};
use gateway_admin::ports::{AdminUsers, AlertSettings};
use gateway_core::coordination::{
    ChangeNotifier, ContinuationPins, Cooldowns, Leases, OAuthPendingFlows, ProviderCircuits, ReplicaHeartbeats,
    RequestSlots, SessionAffinity, TranscriptStore,
};
use gateway_core::ports::{CookieJarStore, CredentialStore, OpsEventLog, QuotaStore, RequestLog, SnapshotSource};
use gateway_store::postgres::{PgStore, ResealCounts, SealedKind, SecretsReseal};
use gateway_store::sqlite::SqliteStore;

/// Every storage port, plus what the process itself needs of the store (readiness, close).
#[async_trait]
pub trait Facts:
    UnitOfWork
    + AdminUsers
    + AlertSettings
    + AuditSearch
    + AuditTrail
    + OpsEventQueries
    + OpsEventLog
    + QuotaStore
    + UsageQueries
    + RequestLog
    + SnapshotSource
    + RuntimeSettingsReader
    + BackupJobs
    + CredentialStore
    + CookieJarStore
    + GroupDirectory
    + AccountDirectory
    + ClientKeyDirectory
{
    /// The readiness probe's name (`postgres`, `sqlite`).
    fn kind(&self) -> &'static str;
    /// One round trip (readiness).
    async fn ping(&self) -> Result<(), String>;
    /// Closes the pool, waiting for checked-out connections.
    async fn close(&self);
    /// Re-seals up to `batch` rows of `kind` under the current master key (key rotation).
    async fn reseal_kind(&self, kind: SealedKind, batch: u32) -> Result<ResealCounts, String>;
}

#[async_trait]
impl Facts for PgStore {
    fn kind(&self) -> &'static str {
        "postgres"
    }

    async fn ping(&self) -> Result<(), String> {
        PgStore::ping(self).await.map_err(|e| e.to_string())
    }

    async fn close(&self) {
        PgStore::close(self).await;
    }

    async fn reseal_kind(&self, kind: SealedKind, batch: u32) -> Result<ResealCounts, String> {
        SecretsReseal::reseal_kind(self, kind, batch).await.map_err(|e| e.to_string())
    }
}

/// Every coordination port.
pub trait Coordination:
    RequestSlots
    + ReplicaHeartbeats
    + SessionAffinity
    + OAuthPendingFlows
    + ContinuationPins
    + Leases
    + ChangeNotifier
    + AdminSessions
    + InFlightCounts
    + LoginThrottle
    + ProviderCircuits
    + Cooldowns
    + TranscriptStore
{
}

impl<T> Coordination for T where
    T: RequestSlots
        + ReplicaHeartbeats
        + SessionAffinity
        + OAuthPendingFlows
        + ContinuationPins
        + Leases
        + ChangeNotifier
        + AdminSessions
        + InFlightCounts
        + LoginThrottle
        + ProviderCircuits
        + Cooldowns
        + TranscriptStore
{
}

#[async_trait]
impl Facts for SqliteStore {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    async fn ping(&self) -> Result<(), String> {
        SqliteStore::ping(self).await.map_err(|e| e.to_string())
    }

    async fn close(&self) {
        SqliteStore::close(self).await;
    }

    async fn reseal_kind(&self, kind: SealedKind, batch: u32) -> Result<ResealCounts, String> {
        SecretsReseal::reseal_kind(self, kind, batch).await.map_err(|e| e.to_string())
    }
}
