//! On-demand credential and quota checks for the admin API: refresh now, probe the quota now,
//! and a connection test. Thin over the core services the workers use, so an admin action and
//! a worker can never race into two refreshes.

use gateway_core::credential_refresh::{CredentialRefresher, RefreshError, RefreshOutcome, RefreshTrigger};
use gateway_core::domain::{AccountId, CredentialRevision, QuotaFacts};
use gateway_core::quota_probe::{QuotaProbeError, QuotaProbeFailure, QuotaProber};

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

/// The outcome of a connection test.
#[derive(Debug)]
pub struct ConnectionTest {
    /// The upstream answered with the account's quota.
    pub ok: bool,
    /// The credential was refreshed on the way (the first probe was refused).
    pub refreshed: bool,
    pub quota: Option<QuotaFacts>,
    /// Stable code of the failure, when not ok.
    pub error: Option<&'static str>,
    pub message: Option<String>,
}

/// Reads the quota with the current credential; if the upstream refuses the access token,
/// refreshes once (as the data plane would) and reads again.
pub async fn test_connection(
    refresher: &CredentialRefresher,
    prober: &QuotaProber,
    account: AccountId,
) -> ConnectionTest {
    let failed = |refreshed: bool, code: &'static str, message: String| ConnectionTest {
        ok: false,
        refreshed,
        quota: None,
        error: Some(code),
        message: Some(message),
    };
    let first = prober.probe_account(account).await;
    let needs_refresh = matches!(
        first,
        Err(QuotaProbeError::Failed(QuotaProbeFailure::Unauthorized | QuotaProbeFailure::AccessTokenExpired))
    );
    if !needs_refresh {
        return match first {
            Ok(quota) => ConnectionTest { ok: true, refreshed: false, quota, error: None, message: None },
            Err(err) => failed(false, err.code(), err.to_string()),
        };
    }
    if let Err(err) = refresher.refresh(account, RefreshTrigger::Manual).await {
        return failed(false, err.code(), err.to_string());
    }
    match prober.probe_account(account).await {
        Ok(quota) => ConnectionTest { ok: true, refreshed: true, quota, error: None, message: None },
        Err(err) => failed(true, err.code(), err.to_string()),
    }
}
