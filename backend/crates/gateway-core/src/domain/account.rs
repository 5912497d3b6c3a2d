//! Provider accounts and the facts stored about them.
//!
//! The state users see (`normal | quota_exhausted | rate_limited | disabled | error`) is never
//! stored: the core resolver derives it from [`SchedulingFacts`], [`CredentialFacts`],
//! [`QuotaFacts`] and the cooldowns held in coordination storage.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::closed_set;
use crate::domain::credential::CredentialSlot;
use crate::domain::egress_proxy::EgressProxy;
use crate::domain::ids::AccountId;
use crate::domain::provider::ProviderKind;
use crate::domain::quota_window::QuotaWindow;
use crate::domain::revision::{CredentialRevision, QuotaRevision};

/// Account weight for selection, 1–100 (default 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Weight(u8);

impl Weight {
    pub const MIN: u8 = 1;
    pub const MAX: u8 = 100;

    pub fn new(value: u8) -> Result<Self, WeightOutOfRange> {
        if (Self::MIN..=Self::MAX).contains(&value) { Ok(Self(value)) } else { Err(WeightOutOfRange(value)) }
    }

    pub const fn get(self) -> u8 {
        self.0
    }
}

impl Default for Weight {
    fn default() -> Self {
        Self(1)
    }
}

impl TryFrom<u8> for Weight {
    type Error = WeightOutOfRange;

    fn try_from(value: u8) -> Result<Self, Self::Error> {
        Self::new(value)
    }
}

impl From<Weight> for u8 {
    fn from(weight: Weight) -> u8 {
        weight.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("weight {0} is outside 1..=100")]
pub struct WeightOutOfRange(pub u8);

/// Facts only an admin edit changes; import, re-authorisation and refresh never touch them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedulingFacts {
    pub enabled: bool,
    /// `None` inherits `RuntimeSettings::default_account_concurrency`.
    pub concurrency_cap: Option<u32>,
    pub weight: Weight,
}

impl Default for SchedulingFacts {
    fn default() -> Self {
        Self { enabled: true, concurrency_cap: None, weight: Weight::default() }
    }
}

closed_set!(
    /// What is known about the credential itself.
    CredentialState as "credential state" {
        Active = "active",
        /// Imported without identity claims.
        Unverified = "unverified",
        /// The provider rejected the refresh token (`invalid_grant`).
        Invalid = "invalid",
        /// Refresh failed past expiry + 24 h.
        Expired = "expired",
        Banned = "banned",
    }
);

/// Credential facts. `reason` is a stable snake_case code, present exactly when the state is not
/// `active`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialFacts {
    pub state: CredentialState,
    pub reason: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub access_token_expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub next_refresh_at: Option<OffsetDateTime>,
    pub refresh_failure_count: u32,
}

impl CredentialFacts {
    /// A freshly obtained, working credential.
    pub fn active(access_token_expires_at: Option<OffsetDateTime>, next_refresh_at: Option<OffsetDateTime>) -> Self {
        Self {
            state: CredentialState::Active,
            reason: None,
            access_token_expires_at,
            next_refresh_at,
            refresh_failure_count: 0,
        }
    }
}

closed_set!(
    /// What clear evidence said about the account's quota.
    QuotaState as "quota state" {
        Allowed = "allowed",
        Exhausted = "exhausted",
        Unknown = "unknown",
    }
);

/// Quota facts: the state clear evidence set and the provider's quota windows.
#[derive(Debug, Clone, PartialEq)]
pub struct QuotaFacts {
    pub state: QuotaState,
    pub windows: Vec<QuotaWindow>,
    pub observed_at: Option<OffsetDateTime>,
}

impl Default for QuotaFacts {
    fn default() -> Self {
        Self { state: QuotaState::Unknown, windows: Vec::new(), observed_at: None }
    }
}

/// Identity and plan as read from the provider's token claims.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountProfile {
    pub email: Option<String>,
    pub plan_type: Option<String>,
}

/// Provider-private facts, schema-versioned by the provider (a JSON object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderData {
    pub version: i32,
    pub data: serde_json::Value,
}

impl Default for ProviderData {
    fn default() -> Self {
        Self { version: 1, data: serde_json::Value::Object(serde_json::Map::new()) }
    }
}

/// One stored account with every fact the runtime snapshot and the admin views need.
#[derive(Debug, Clone)]
pub struct AccountRecord {
    pub id: AccountId,
    pub provider: ProviderKind,
    /// The provider's own account id (e.g. `chatgpt_account_id`), unique per provider.
    pub external_account_id: String,
    pub profile: AccountProfile,
    pub scheduling: SchedulingFacts,
    pub credential_revision: CredentialRevision,
    pub credential: CredentialSlot,
    pub credential_facts: CredentialFacts,
    pub quota_revision: QuotaRevision,
    pub quota: QuotaFacts,
    pub provider_data: ProviderData,
    /// The account's own egress proxy (it wins over its groups'; decision 0241).
    pub egress_proxy: Option<EgressProxy>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}
