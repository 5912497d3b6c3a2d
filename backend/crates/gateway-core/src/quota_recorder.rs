//! Writes quota observations from traffic (headers, in-stream events) as quota facts, fenced by
//! the account's quota revision: a lost race re-reads the revision once and retries, an older
//! observation than the stored one is discarded.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::domain::{AccountId, QuotaFacts, QuotaRevision, QuotaState};
use crate::observation::QuotaWriter;
use crate::ports::{QuotaStore, SnapshotSource, StorageErrorKind};
use crate::snapshot::SnapshotHolder;

pub struct QuotaRecorder {
    store: Arc<dyn QuotaStore>,
    accounts: Arc<dyn SnapshotSource>,
    snapshots: SnapshotHolder,
    /// The last revision this process wrote or read per account (newer than the snapshot's).
    revisions: Mutex<HashMap<AccountId, QuotaRevision>>,
    /// What was last written per account and when: the same facts again within
    /// [`UNCHANGED_REWRITE`] are not written (every response carries the same headers).
    written: Mutex<HashMap<AccountId, Written>>,
}

/// The state and windows last written for an account, and when.
type Written = (QuotaState, Vec<crate::domain::QuotaWindow>, std::time::Instant);

/// An unchanged observation is written again at most this often (to move `observed_at`).
const UNCHANGED_REWRITE: std::time::Duration = std::time::Duration::from_secs(60);

impl QuotaRecorder {
    pub fn new(store: Arc<dyn QuotaStore>, accounts: Arc<dyn SnapshotSource>, snapshots: SnapshotHolder) -> Self {
        Self { store, accounts, snapshots, revisions: Mutex::new(HashMap::new()), written: Mutex::new(HashMap::new()) }
    }

    fn known_revision(&self, account: AccountId) -> Option<QuotaRevision> {
        let local = self.revisions.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&account).copied();
        let snapshot = self.snapshots.current().account(account).map(|a| a.record.quota_revision);
        local.max(snapshot)
    }

    fn remember(&self, account: AccountId, revision: QuotaRevision) {
        self.revisions.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(account, revision);
    }
}

#[async_trait::async_trait]
impl QuotaWriter for QuotaRecorder {
    async fn write(&self, account: AccountId, facts: QuotaFacts) {
        {
            let written = self.written.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some((state, windows, at)) = written.get(&account)
                && *state == facts.state
                && *windows == facts.windows
                && at.elapsed() < UNCHANGED_REWRITE
            {
                return;
            }
        }
        let Some(expected) = self.known_revision(account) else { return };
        self.written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(account, (facts.state, facts.windows.clone(), std::time::Instant::now()));
        match self.store.write_quota(account, expected, facts.clone()).await {
            Ok(revision) => self.remember(account, revision),
            Err(err) if err.kind() == StorageErrorKind::RevisionMismatch => {
                // Another writer moved it: read the current revision once and retry; an older
                // observation loses again and is dropped.
                if let Ok(record) = self.accounts.load_account(account).await {
                    self.remember(account, record.quota_revision);
                    if let Ok(revision) = self.store.write_quota(account, record.quota_revision, facts).await {
                        self.remember(account, revision);
                    }
                }
            }
            Err(err) => tracing::debug!(%account, error = %err, "quota observation not written"),
        }
    }
}
