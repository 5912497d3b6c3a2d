//! The refresh worker: each period (once across replicas, by period lease) it refreshes the
//! accounts that are due, a few at a time; between periods it retries held writes.

use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::{CredentialRefresher, RefreshError, RefreshOutcome, RefreshTrigger};
use crate::coordination::PeriodicLeader;
use crate::ports::StorageError;

/// What one pass over the due accounts did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RefreshRunReport {
    pub due: usize,
    pub renewed: usize,
    /// Already renewed elsewhere, or no longer due.
    pub skipped: usize,
    pub failed: usize,
}

/// Pause after a failed period claim (coordination down) before asking again.
const CLAIM_RETRY: Duration = Duration::from_secs(5);

impl CredentialRefresher {
    /// Refreshes up to `limit` due accounts, `refresh_concurrency` (runtime setting) at a time.
    pub async fn run_due(self: &Arc<Self>, limit: u32) -> Result<RefreshRunReport, StorageError> {
        let now = OffsetDateTime::now_utc();
        let due: Vec<_> = self
            .ports
            .credentials
            .due_for_refresh(now, limit)
            .await?
            .into_iter()
            .filter(|d| self.supports(d.provider))
            .collect();
        let concurrency = self.snapshots.current().settings.refresh_concurrency.max(1) as usize;
        let mut report = RefreshRunReport { due: due.len(), ..RefreshRunReport::default() };
        let mut pending = due.into_iter();
        let mut running = JoinSet::new();
        loop {
            while running.len() < concurrency {
                let Some(entry) = pending.next() else { break };
                let refresher = self.clone();
                running.spawn(async move {
                    let trigger = RefreshTrigger::Due { seen: entry.credential_revision };
                    refresher.refresh(entry.account_id, trigger).await
                });
            }
            let Some(joined) = running.join_next().await else { break };
            match joined {
                Ok(Ok(RefreshOutcome::Renewed(_))) => report.renewed += 1,
                Ok(Ok(RefreshOutcome::Newer(_) | RefreshOutcome::NotDue) | Err(RefreshError::InProgressElsewhere)) => {
                    report.skipped += 1
                }
                Ok(Err(_)) => report.failed += 1,
                Err(join) => {
                    tracing::error!(error = %join, "a refresh task panicked");
                    report.failed += 1;
                }
            }
        }
        Ok(report)
    }

    /// Retries every held write once.
    pub async fn flush_held(&self) {
        for account in self.held.accounts() {
            let lock = self.local_lock(account);
            let _local = lock.lock().await;
            if let Some(Err(err)) = self.flush_one(account).await {
                tracing::warn!(%account, error = %err, "rotated credential still not stored; retrying");
            }
        }
    }

    /// The worker loop: retry held writes, run the due accounts when this replica wins the
    /// period, sleep until the next period (or the next held-write retry). Returns when `stop`
    /// is cancelled; a pass in progress finishes first.
    pub async fn run_worker(self: Arc<Self>, mut leader: PeriodicLeader, batch: u32, stop: CancellationToken) {
        loop {
            self.flush_held().await;
            let wait = match leader.poll().await {
                Ok(decision) => {
                    if decision.run.is_some() {
                        match self.run_due(batch).await {
                            Ok(report) if report.due > 0 => tracing::info!(?report, "credential refresh pass"),
                            Ok(_) => {}
                            Err(err) => tracing::warn!(error = %err, "due credentials not read"),
                        }
                    }
                    decision.next_in
                }
                Err(err) => {
                    tracing::warn!(error = %err, "refresh period not claimed");
                    CLAIM_RETRY
                }
            };
            let wait = if self.has_held_writes() { wait.min(self.settings.held_retry) } else { wait };
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(wait) => {}
            }
        }
    }
}
