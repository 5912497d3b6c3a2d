//! Credential refresh, once per account across all replicas.
//!
//! [`CredentialRefresher::refresh`] is the one path that spends a refresh token: the refresh
//! worker (due accounts), the data plane's 401 recovery and the admin's "refresh now" all call
//! it. Per account it is single-flight twice over: an in-process lock, then a coordination lease
//! (`credential-refresh:<id>`) across replicas. Under the lease it re-reads the account, so a
//! caller that waited finds the credential another caller stored and does not refresh again.
//!
//! Order of a refresh: renew upstream (the old refresh token is spent) → compare-and-swap write
//! of the new document on `credential_revision` → only then is the new access token handed to
//! anyone. A failed write holds the rotated pair in memory ([`held_writes`]) and retries it
//! (worker loop, or the next refresh call) until the database takes it; meanwhile no second
//! refresh is attempted and the lease stays renewed.
//!
//! Failures: a permanent refusal writes terminal credential facts at once (stable reason); a
//! transient one keeps the credential and schedules the next try by [`refresh_schedule`]. Both
//! fact writes are fenced by the revision read under the lease: if another writer stored a new
//! credential meanwhile, nothing is marked.
//!
//! [`refresh_schedule`]: crate::refresh_schedule

mod attempt;
pub mod held_writes;
pub mod renewer;
mod worker;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use time::OffsetDateTime;

use crate::coordination::{CoordinationError, Leases, ReplicaId};
use crate::domain::{AccountId, CredentialDocument, CredentialRevision, CredentialSlot, ProviderKind};
use crate::ports::{CredentialStore, SnapshotSource, StorageError};
use crate::snapshot::SnapshotHolder;

pub use held_writes::{HeldWrite, HeldWrites};
pub use renewer::{CredentialRenewer, RenewFailure, RenewedCredential, TokenRefreshError};
pub use worker::RefreshRunReport;

/// Why a refresh is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshTrigger {
    /// The worker found the account due at this revision.
    Due { seen: CredentialRevision },
    /// The upstream refused the credential of this revision (401).
    Unauthorized { seen: CredentialRevision },
    /// An admin asked for it: refresh even if not due.
    Manual,
}

/// A stored credential and its revision.
#[derive(Debug, Clone)]
pub struct CurrentCredential {
    pub revision: CredentialRevision,
    pub document: CredentialDocument,
}

/// What a refresh call achieved.
#[derive(Debug, Clone)]
pub enum RefreshOutcome {
    /// This call renewed the credential and stored it.
    Renewed(CurrentCredential),
    /// A newer credential than the caller's is stored already (another caller refreshed, or an
    /// admin re-authorised): use it.
    Newer(CurrentCredential),
    /// The account is not due any more (its schedule moved, or it is not refreshable).
    NotDue,
}

/// Why a refresh call did not produce a usable credential.
#[derive(Debug, thiserror::Error)]
pub enum RefreshError {
    /// Another replica holds the refresh lease and did not finish within the wait.
    #[error("another replica is refreshing this credential")]
    InProgressElsewhere,
    /// A rotated credential is held in memory until the database takes it.
    #[error("the rotated credential is not stored yet; its write is being retried")]
    WritePending,
    /// The credential cannot be refreshed any more; the terminal facts carry `reason`.
    #[error("the credential is unusable: {reason}")]
    Terminal { reason: String },
    /// The upstream failed for now (`fault`: the token endpoint or its edge); the next try is
    /// scheduled at `retry_at`.
    #[error("refresh failed for now: {message}")]
    Transient { message: String, retry_at: Option<OffsetDateTime>, fault: crate::fault::Fault },
    /// The credential has no refresh token.
    #[error("the credential has no refresh token")]
    NoRefreshToken,
    /// The stored credential cannot be opened or read.
    #[error("the stored credential is unreadable")]
    Unreadable,
    #[error("no refresher for provider {0}")]
    NoRenewer(ProviderKind),
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Coordination(#[from] CoordinationError),
}

impl RefreshError {
    /// A stable snake_case code (admin API, logs).
    pub fn code(&self) -> &'static str {
        match self {
            Self::InProgressElsewhere => "refresh_in_progress",
            Self::WritePending => "refresh_write_pending",
            Self::Terminal { .. } => "credential_unusable",
            Self::Transient { fault: crate::fault::Fault::TokenEndpointChallenge, .. } => "refresh_challenged",
            Self::Transient { .. } => "refresh_failed",
            Self::NoRefreshToken => "no_refresh_token",
            Self::Unreadable => "credential_unreadable",
            Self::NoRenewer(_) => "provider_unsupported",
            Self::Storage(_) => "storage_unavailable",
            Self::Coordination(_) => "coordination_unavailable",
        }
    }
}

/// Tunables of the refresher.
#[derive(Debug, Clone, Copy)]
pub struct RefreshSettings {
    /// TTL of the per-account refresh lease; well above the renewer's own timeout.
    pub lease_ttl: Duration,
    /// How long a 401 recovery or a manual refresh waits for another replica's refresh.
    pub wait_for_other: Duration,
    /// How often it looks while waiting.
    pub wait_poll: Duration,
    /// How often held writes are retried by the worker loop.
    pub held_retry: Duration,
}

impl Default for RefreshSettings {
    fn default() -> Self {
        Self {
            lease_ttl: Duration::from_secs(120),
            wait_for_other: Duration::from_secs(10),
            wait_poll: Duration::from_millis(100),
            held_retry: Duration::from_secs(1),
        }
    }
}

/// The storage and coordination ports a refresher needs.
#[derive(Clone)]
pub struct RefreshPorts {
    /// `load_account`: revision, credential and credential facts in one read.
    pub accounts: Arc<dyn SnapshotSource>,
    pub credentials: Arc<dyn CredentialStore>,
    pub leases: Arc<dyn Leases>,
}

pub struct CredentialRefresher {
    ports: RefreshPorts,
    replica: ReplicaId,
    renewers: Vec<Arc<dyn CredentialRenewer>>,
    /// The refresh margin (`refreshMarginSeconds`) and concurrency come from the runtime settings.
    snapshots: SnapshotHolder,
    settings: RefreshSettings,
    locks: Mutex<HashMap<AccountId, Arc<tokio::sync::Mutex<()>>>>,
    held: HeldWrites,
    telemetry: crate::telemetry::Telemetry,
    alerts: crate::alerts::AlertSink,
}

/// The lease that makes one account's refresh single-flight across replicas.
pub fn lease_name(account: AccountId) -> String {
    format!("credential-refresh:{}", account.0)
}

impl CredentialRefresher {
    pub fn new(
        ports: RefreshPorts,
        replica: ReplicaId,
        renewers: Vec<Arc<dyn CredentialRenewer>>,
        snapshots: SnapshotHolder,
        settings: RefreshSettings,
    ) -> Self {
        Self {
            ports,
            replica,
            renewers,
            snapshots,
            settings,
            locks: Mutex::new(HashMap::new()),
            held: HeldWrites::default(),
            telemetry: crate::telemetry::Telemetry::disabled(),
            alerts: crate::alerts::AlertSink::disabled(),
        }
    }

    /// Raises `refresh_failing` when a refresh ends terminally.
    pub fn with_alerts(mut self, alerts: crate::alerts::AlertSink) -> Self {
        self.alerts = alerts;
        self
    }

    /// Counts refresh outcomes into `telemetry`.
    pub fn with_telemetry(mut self, telemetry: crate::telemetry::Telemetry) -> Self {
        self.telemetry = telemetry;
        self
    }

    fn count(&self, account: AccountId, result: &Result<RefreshOutcome, RefreshError>) {
        let outcome = match result {
            Ok(RefreshOutcome::Renewed(_)) => "renewed",
            Ok(RefreshOutcome::Newer(_)) => "newer",
            Ok(RefreshOutcome::NotDue) => return,
            Err(error) => error.code(),
        };
        let provider = self.snapshots.current().account(account).map(|entry| entry.provider());
        if let Some(provider) = provider {
            self.telemetry.refresh_finished(provider, outcome);
        }
        if let Err(RefreshError::Terminal { reason }) = result {
            let kind = if reason == "banned" || reason.contains("deactivated") {
                crate::alerts::AlertKind::AccountBanned
            } else {
                crate::alerts::AlertKind::RefreshFailing
            };
            self.alerts.raise(crate::alerts::Alert {
                kind,
                occurred_at: OffsetDateTime::now_utc(),
                provider,
                account_id: Some(account),
                client_key_id: None,
                reason: reason.clone(),
                message: format!(
                    "The credential of account {account} cannot be refreshed ({reason}); re-authorise it."
                ),
            });
        }
    }

    /// Whether rotated credentials are waiting for the database.
    pub fn has_held_writes(&self) -> bool {
        !self.held.is_empty()
    }

    fn renewer(&self, provider: ProviderKind) -> Result<&Arc<dyn CredentialRenewer>, RefreshError> {
        self.renewers.iter().find(|r| r.provider() == provider).ok_or(RefreshError::NoRenewer(provider))
    }

    fn supports(&self, provider: ProviderKind) -> bool {
        self.renewers.iter().any(|r| r.provider() == provider)
    }

    fn local_lock(&self, account: AccountId) -> Arc<tokio::sync::Mutex<()>> {
        self.locks.lock().unwrap_or_else(std::sync::PoisonError::into_inner).entry(account).or_default().clone()
    }

    /// Refreshes `account` (single-flight in this process and across replicas).
    pub async fn refresh(&self, account: AccountId, trigger: RefreshTrigger) -> Result<RefreshOutcome, RefreshError> {
        let lock = self.local_lock(account);
        let _local = lock.lock().await;
        if self.held.contains(account) {
            // Never spend the old token again: finish storing its successor first.
            return match self.flush_one(account).await {
                Some(Ok(outcome)) => Ok(outcome),
                Some(Err(err)) => {
                    tracing::warn!(%account, error = %err, "rotated credential still not stored");
                    Err(RefreshError::WritePending)
                }
                None => Err(RefreshError::WritePending),
            };
        }
        let name = lease_name(account);
        let lease = match self.ports.leases.try_acquire_lease(&name, &self.replica, self.settings.lease_ttl).await? {
            Some(lease) => lease,
            None => return self.wait_for_other(account, trigger).await,
        };
        let result = self.refresh_leased(account, trigger, &lease).await;
        self.count(account, &result);
        if !matches!(result, Err(RefreshError::WritePending)) {
            // A held write keeps the lease (renewed by the retries) so that no replica spends
            // the old token meanwhile.
            if let Err(err) = self.ports.leases.release_lease(&lease).await {
                tracing::debug!(%account, error = %err, "refresh lease not released; it expires");
            }
        }
        result
    }

    /// Another replica holds the lease. The worker skips; a recovery or a manual refresh waits
    /// (bounded) for that replica's credential, or for the lease to come free.
    async fn wait_for_other(
        &self,
        account: AccountId,
        trigger: RefreshTrigger,
    ) -> Result<RefreshOutcome, RefreshError> {
        let seen = match trigger {
            RefreshTrigger::Due { .. } => return Err(RefreshError::InProgressElsewhere),
            RefreshTrigger::Unauthorized { seen } => seen,
            RefreshTrigger::Manual => self.ports.credentials.read_credential(account).await?.revision,
        };
        let deadline = tokio::time::Instant::now() + self.settings.wait_for_other;
        while tokio::time::Instant::now() < deadline {
            tokio::time::sleep(self.settings.wait_poll).await;
            let stored = self.ports.credentials.read_credential(account).await?;
            if stored.revision > seen {
                return current(stored.revision, stored.slot).map(RefreshOutcome::Newer);
            }
            let name = lease_name(account);
            if let Some(lease) =
                self.ports.leases.try_acquire_lease(&name, &self.replica, self.settings.lease_ttl).await?
            {
                let trigger = match trigger {
                    RefreshTrigger::Manual => RefreshTrigger::Unauthorized { seen },
                    other => other,
                };
                let result = self.refresh_leased(account, trigger, &lease).await;
                self.count(account, &result);
                if !matches!(result, Err(RefreshError::WritePending)) {
                    let _ = self.ports.leases.release_lease(&lease).await;
                }
                return result;
            }
        }
        Err(RefreshError::InProgressElsewhere)
    }
}

/// A stored slot as a usable credential.
fn current(revision: CredentialRevision, slot: CredentialSlot) -> Result<CurrentCredential, RefreshError> {
    match slot {
        CredentialSlot::Available(document) => Ok(CurrentCredential { revision, document }),
        CredentialSlot::Unreadable { .. } => Err(RefreshError::Unreadable),
    }
}
