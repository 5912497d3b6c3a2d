//! One refresh under the lease: re-read, renew, store (or hold), or record the failure.

use std::time::Duration;

use time::OffsetDateTime;

use super::{
    CredentialRefresher, CurrentCredential, HeldWrite, RefreshError, RefreshOutcome, RefreshTrigger, RenewFailure,
    current,
};
use crate::coordination::Lease;
use crate::domain::{AccountId, AccountRecord, CredentialFacts, CredentialRevision, CredentialSlot, CredentialState};
use crate::fault::Fault;
use crate::ports::{CredentialWrite, StorageErrorKind};
use crate::refresh_schedule::{self, RetryPlan};

/// States a refresh may renew: a working credential, or one imported without identity claims.
fn refreshable(state: CredentialState) -> bool {
    matches!(state, CredentialState::Active | CredentialState::Unverified)
}

impl CredentialRefresher {
    pub(super) async fn refresh_leased(
        &self,
        account: AccountId,
        trigger: RefreshTrigger,
        lease: &Lease,
    ) -> Result<RefreshOutcome, RefreshError> {
        let record = self.ports.accounts.load_account(account).await?;
        let now = OffsetDateTime::now_utc();
        match trigger {
            RefreshTrigger::Due { seen } => {
                let due = record.credential_facts.next_refresh_at.is_some_and(|at| at <= now);
                if record.credential_revision != seen || !due || !refreshable(record.credential_facts.state) {
                    return Ok(RefreshOutcome::NotDue);
                }
            }
            RefreshTrigger::Unauthorized { seen } if record.credential_revision > seen => {
                return current(record.credential_revision, record.credential).map(RefreshOutcome::Newer);
            }
            RefreshTrigger::Unauthorized { .. } | RefreshTrigger::Manual => {}
        }
        let renewer = self.renewer(record.provider)?;
        let CredentialSlot::Available(document) = &record.credential else { return Err(RefreshError::Unreadable) };
        // The proxy the snapshot resolved (own or group's); the record's own when the snapshot
        // does not hold the account yet.
        let egress = self.snapshots.current().account(account).map(|entry| entry.egress_proxy.clone());
        let egress = egress.unwrap_or_else(|| record.egress_proxy.clone());
        match renewer.renew(document, egress.as_ref()).await {
            Ok(renewed) => {
                let margin = Duration::from_secs(u64::from(self.snapshots.current().settings.refresh_margin_seconds));
                let expires = renewed.access_token_expires_at;
                let mut facts =
                    CredentialFacts::active(expires, Some(refresh_schedule::after_success(expires, margin, now)));
                if record.credential_facts.state == CredentialState::Unverified {
                    facts.state = CredentialState::Unverified;
                    facts.reason = record.credential_facts.reason.clone();
                }
                let write = CredentialWrite { document: renewed.document, facts, profile: None };
                self.store_renewed(account, record.credential_revision, write, lease).await
            }
            Err(RenewFailure::Permanent { state, reason }) => {
                let facts = terminal_facts(&record, state, &reason);
                self.record_failure(&record, facts).await?;
                tracing::warn!(%account, %reason, "refresh refused permanently; credential marked unusable");
                Err(RefreshError::Terminal { reason })
            }
            Err(RenewFailure::Malformed) => {
                let facts = terminal_facts(&record, CredentialState::Invalid, "credential_malformed");
                self.record_failure(&record, facts).await?;
                Err(RefreshError::Terminal { reason: "credential_malformed".to_owned() })
            }
            Err(RenewFailure::NoRefreshToken) => {
                // Usable until it expires; nothing to schedule.
                let mut facts = record.credential_facts.clone();
                facts.next_refresh_at = None;
                self.record_failure(&record, facts).await?;
                Err(RefreshError::NoRefreshToken)
            }
            Err(failure @ (RenewFailure::Transient(_) | RenewFailure::Challenged { .. })) => {
                let (fault, message) = match failure {
                    RenewFailure::Challenged { status } => {
                        tracing::warn!(%account, status, "the token endpoint's edge challenged the refresh; the credential is kept");
                        (Fault::TokenEndpointChallenge, format!("the token endpoint's edge answered {status}"))
                    }
                    RenewFailure::Transient(message) => (Fault::TokenEndpointUnavailable, message),
                    _ => (Fault::TokenEndpointUnavailable, String::new()),
                };
                let failures = record.credential_facts.refresh_failure_count.saturating_add(1);
                let expires = record.credential_facts.access_token_expires_at;
                match refresh_schedule::after_transient_failure(failures, expires, now) {
                    RetryPlan::RetryAt(at) => {
                        let mut facts = record.credential_facts.clone();
                        facts.refresh_failure_count = failures;
                        facts.next_refresh_at = Some(at);
                        self.record_failure(&record, facts).await?;
                        tracing::info!(%account, failures, retry_at = %at, %message, "refresh failed for now");
                        Err(RefreshError::Transient { message, retry_at: Some(at), fault })
                    }
                    RetryPlan::GiveUp => {
                        let reason = refresh_schedule::EXPIRED_REASON;
                        let facts = terminal_facts(&record, CredentialState::Expired, reason);
                        self.record_failure(&record, facts).await?;
                        tracing::warn!(%account, "refresh kept failing past expiry + 24 h; credential expired");
                        Err(RefreshError::Terminal { reason: reason.to_owned() })
                    }
                }
            }
        }
    }

    /// Writes failure facts fenced by the revision read under the lease. If another writer
    /// stored a credential meanwhile the facts are stale and dropped (the newer credential is
    /// not marked).
    async fn record_failure(&self, record: &AccountRecord, facts: CredentialFacts) -> Result<(), RefreshError> {
        match self.ports.credentials.write_credential_facts(record.id, record.credential_revision, facts).await {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == StorageErrorKind::RevisionMismatch => {
                tracing::info!(account = %record.id, "credential changed during the refresh; failure not recorded");
                Ok(())
            }
            Err(err) => Err(err.into()),
        }
    }

    /// Stores a rotated credential; holds it when the database cannot take it now.
    async fn store_renewed(
        &self,
        account: AccountId,
        expected: CredentialRevision,
        write: CredentialWrite,
        lease: &Lease,
    ) -> Result<RefreshOutcome, RefreshError> {
        match self.ports.credentials.write_credential(account, expected, write.clone()).await {
            Ok(revision) => Ok(RefreshOutcome::Renewed(CurrentCredential { revision, document: write.document })),
            Err(err) if err.kind() == StorageErrorKind::RevisionMismatch => {
                // An admin stored another credential meanwhile; it wins over this rotation.
                tracing::warn!(%account, "credential replaced during the refresh; the rotated one is discarded");
                let stored = self.ports.credentials.read_credential(account).await?;
                current(stored.revision, stored.slot).map(RefreshOutcome::Newer)
            }
            Err(err) => {
                tracing::error!(%account, error = %err, "rotated credential not stored; holding it and retrying");
                let since = OffsetDateTime::now_utc();
                self.held.hold(account, HeldWrite { expected, write, lease: lease.clone(), since });
                Err(RefreshError::WritePending)
            }
        }
    }

    /// Retries one held write. `None` when nothing is held for `account`.
    pub(super) async fn flush_one(&self, account: AccountId) -> Option<Result<RefreshOutcome, RefreshError>> {
        let held = self.held.get(account)?;
        if let Err(err) = self.ports.leases.renew_lease(&held.lease, self.settings.lease_ttl).await {
            tracing::debug!(%account, error = %err, "refresh lease not renewed while holding a rotated credential");
        }
        let written = self.ports.credentials.write_credential(account, held.expected, held.write.clone()).await;
        let outcome = match written {
            Ok(revision) => {
                tracing::info!(%account, "held rotated credential stored");
                Ok(RefreshOutcome::Renewed(CurrentCredential { revision, document: held.write.document.clone() }))
            }
            Err(err) if err.kind() == StorageErrorKind::RevisionMismatch => {
                tracing::warn!(%account, "credential replaced while a rotation was held; the rotation is discarded");
                match self.ports.credentials.read_credential(account).await {
                    Ok(stored) => current(stored.revision, stored.slot).map(RefreshOutcome::Newer),
                    Err(err) => Err(err.into()),
                }
            }
            Err(err) => return Some(Err(err.into())),
        };
        self.held.remove(account);
        let _ = self.ports.leases.release_lease(&held.lease).await;
        Some(outcome)
    }
}

/// Facts of a credential that will not work again.
fn terminal_facts(record: &AccountRecord, state: CredentialState, reason: &str) -> CredentialFacts {
    CredentialFacts {
        state,
        reason: Some(reason.to_owned()),
        access_token_expires_at: record.credential_facts.access_token_expires_at,
        next_refresh_at: None,
        refresh_failure_count: record.credential_facts.refresh_failure_count.saturating_add(1),
    }
}
