//! On-demand credential and quota checks for the admin API: refresh now, probe the quota now,
//! and a connection test. Thin over the core services the workers use, so an admin action and
//! a worker can never race into two refreshes.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use gateway_core::credential_refresh::{CredentialRefresher, RefreshError, RefreshOutcome, RefreshTrigger};
use gateway_core::domain::{AccountId, CredentialRevision, QuotaFacts};
use gateway_core::quota_probe::{QuotaProbeError, QuotaProbeFailure, QuotaProber};

use crate::error::AdminError;
use crate::ports::AccountActions;
pub use crate::ports::account_actions::{ConnectionTest, ProbeReport, RefreshReport};

/// What "refresh now" did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshNow {
    /// This call renewed the credential; its new revision.
    Renewed(CredentialRevision),
    /// Another caller had just renewed it; the current revision.
    AlreadyRenewed(CredentialRevision),
}

/// Refreshes `account` now (single-flight with the worker and the data plane).
pub async fn refresh_now(refresher: &CredentialRefresher, account: AccountId) -> Result<RefreshNow, RefreshError> {
    match refresher.refresh(account, RefreshTrigger::Manual).await? {
        RefreshOutcome::Renewed(current) => Ok(RefreshNow::Renewed(current.revision)),
        RefreshOutcome::Newer(current) => Ok(RefreshNow::AlreadyRenewed(current.revision)),
        // A manual refresh is never "not due".
        RefreshOutcome::NotDue => Err(RefreshError::InProgressElsewhere),
    }
}

/// Reads the account's quota from the upstream now and stores a clear reading.
pub async fn probe_quota(prober: &QuotaProber, account: AccountId) -> Result<Option<QuotaFacts>, QuotaProbeError> {
    prober.probe_account(account).await
}

/// Reads the quota with the current credential; if the upstream refuses the access token,
/// refreshes once (as the data plane would) and reads again.
pub async fn test_connection(
    refresher: &CredentialRefresher,
    prober: &QuotaProber,
    account: AccountId,
) -> ConnectionTest {
    let started = Instant::now();
    let report = |ok: bool, refreshed: bool, quota: Option<QuotaFacts>, failure: Option<(&str, String)>| {
        let (error_code, message) = failure.map(|(c, m)| (c.to_owned(), m)).unzip();
        ConnectionTest { ok, refreshed, quota, error_code, message, total_ms: elapsed_ms(started) }
    };
    let first = prober.probe_account(account).await;
    let needs_refresh = matches!(
        first,
        Err(QuotaProbeError::Failed(QuotaProbeFailure::Unauthorized | QuotaProbeFailure::AccessTokenExpired))
    );
    if !needs_refresh {
        return match first {
            Ok(quota) => report(true, false, quota, None),
            Err(err) => report(false, false, None, Some((probe_code(&err), err.to_string()))),
        };
    }
    if let Err(err) = refresher.refresh(account, RefreshTrigger::Manual).await {
        return report(false, false, None, Some((err.code(), refresh_message(&err))));
    }
    match prober.probe_account(account).await {
        Ok(quota) => report(true, true, quota, None),
        Err(err) => report(false, true, None, Some((probe_code(&err), err.to_string()))),
    }
}

/// The probe's code, except that an account missing from the routing snapshot (the admin API
/// checked it exists: it was just created and is not loaded yet) is named for what it is.
fn probe_code(error: &QuotaProbeError) -> &'static str {
    match error {
        QuotaProbeError::UnknownAccount(_) => "account_not_loaded",
        other => other.code(),
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The detail shown for a refresh failure: the terminal reason alone (`refresh_token_reused`),
/// otherwise the error's text.
fn refresh_message(error: &RefreshError) -> String {
    match error {
        RefreshError::Terminal { reason } => reason.clone(),
        other => other.to_string(),
    }
}

/// Errors of the request itself; everything else is reported about the account.
fn request_error_of_refresh(error: RefreshError) -> Result<RefreshError, AdminError> {
    match error {
        RefreshError::Storage(e) => Err(e.into()),
        RefreshError::Coordination(e) => Err(e.into()),
        RefreshError::NoRenewer(provider) => {
            Err(AdminError::Unsupported(format!("{provider} accounts cannot be refreshed")))
        }
        other => Ok(other),
    }
}

fn request_error_of_probe(error: QuotaProbeError) -> Result<QuotaProbeError, AdminError> {
    match error {
        QuotaProbeError::Unsupported(provider) => {
            Err(AdminError::Unsupported(format!("{provider} accounts have no quota probe")))
        }
        other => Ok(other),
    }
}

/// [`AccountActions`] over the core refresher and quota prober.
pub struct AccountChecks {
    refresher: Arc<CredentialRefresher>,
    prober: Arc<QuotaProber>,
}

impl AccountChecks {
    pub fn new(refresher: Arc<CredentialRefresher>, prober: Arc<QuotaProber>) -> Self {
        Self { refresher, prober }
    }
}

#[async_trait]
impl AccountActions for AccountChecks {
    async fn refresh_now(&self, account: AccountId) -> Result<RefreshReport, AdminError> {
        let (revision, already_renewed) = match refresh_now(&self.refresher, account).await {
            Ok(RefreshNow::Renewed(revision)) => (revision, false),
            Ok(RefreshNow::AlreadyRenewed(revision)) => (revision, true),
            Err(err) => {
                let err = request_error_of_refresh(err)?;
                let retry_at = match &err {
                    RefreshError::Transient { retry_at, .. } => *retry_at,
                    _ => None,
                };
                return Ok(RefreshReport {
                    refreshed: false,
                    already_renewed: false,
                    credential_revision: None,
                    error_code: Some(err.code().to_owned()),
                    message: Some(refresh_message(&err)),
                    retry_at,
                });
            }
        };
        Ok(RefreshReport {
            refreshed: true,
            already_renewed,
            credential_revision: Some(revision.0),
            error_code: None,
            message: None,
            retry_at: None,
        })
    }

    async fn probe_quota(&self, account: AccountId) -> Result<ProbeReport, AdminError> {
        match probe_quota(&self.prober, account).await {
            Ok(quota) => Ok(ProbeReport { ok: true, quota, error_code: None, message: None }),
            Err(err) => {
                let err = request_error_of_probe(err)?;
                Ok(ProbeReport {
                    ok: false,
                    quota: None,
                    error_code: Some(probe_code(&err).to_owned()),
                    message: Some(err.to_string()),
                })
            }
        }
    }

    async fn test_connection(&self, account: AccountId) -> Result<ConnectionTest, AdminError> {
        let test = test_connection(&self.refresher, &self.prober, account).await;
        if test.error_code.as_deref() == Some("provider_unsupported") {
            return Err(AdminError::Unsupported(test.message.unwrap_or_default()));
        }
        Ok(test)
    }
}
