//! Provider-side actions on one account that the admin API triggers: refresh the credential
//! now, probe the quota now, and test the connection. Implemented over the core refresher and
//! quota prober by [`crate::oauth::account_checks::AccountChecks`] (the same single-flight
//! paths the workers and the data plane use).
//!
//! What the upstream said about the account (a refused refresh token, an unauthorised probe) is
//! a *report* (`ok: false` + a stable `error_code`), not an error: the admin asked, the answer
//! is about the account. Errors are for the request itself (unknown account, a provider without
//! the capability, storage or coordination down).

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_core::domain::{AccountId, QuotaFacts};

use crate::error::AdminError;

/// What "refresh now" did.
#[derive(Debug, Clone, PartialEq)]
pub struct RefreshReport {
    /// The credential is fresh now (renewed by this call or just before by another caller).
    pub refreshed: bool,
    /// Another caller (a worker, the data plane, another replica) had just renewed it.
    pub already_renewed: bool,
    /// The credential revision after the call.
    pub credential_revision: Option<i64>,
    /// Stable code when not refreshed (`credential_unusable`, `refresh_failed`,
    /// `no_refresh_token`, `credential_unreadable`, `refresh_in_progress`, …).
    pub error_code: Option<String>,
    /// Human-readable detail (the terminal reason, e.g. `refresh_token_reused`); never a secret.
    pub message: Option<String>,
    /// When the refresher tries again after a transient failure.
    pub retry_at: Option<OffsetDateTime>,
}

/// What an on-demand quota probe saw.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeReport {
    pub ok: bool,
    /// The reading, when the upstream answered with clear evidence (it was stored).
    pub quota: Option<QuotaFacts>,
    pub error_code: Option<String>,
    pub message: Option<String>,
}

/// What a connection test saw: a quota read with the current credential, refreshed once when
/// the upstream refused the access token.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionTest {
    pub ok: bool,
    /// The credential was refreshed on the way.
    pub refreshed: bool,
    pub quota: Option<QuotaFacts>,
    pub error_code: Option<String>,
    pub message: Option<String>,
    pub total_ms: u64,
}

#[async_trait]
pub trait AccountActions: Send + Sync {
    async fn refresh_now(&self, account: AccountId) -> Result<RefreshReport, AdminError>;
    async fn probe_quota(&self, account: AccountId) -> Result<ProbeReport, AdminError>;
    async fn test_connection(&self, account: AccountId) -> Result<ConnectionTest, AdminError>;
}
