//! The one resolver of the account state users see, derived from stored facts and the cooldown
//! held in coordination storage — never stored itself.

use serde::Serialize;
use time::OffsetDateTime;

use crate::domain::{AccountRecord, CredentialSlot, CredentialState, QuotaState};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AccountState {
    Normal,
    QuotaExhausted,
    RateLimited {
        #[serde(with = "time::serde::rfc3339")]
        until: OffsetDateTime,
    },
    Disabled,
    Error {
        reason: String,
    },
}

impl AccountState {
    pub fn name(&self) -> &'static str {
        match self {
            Self::Normal => "normal",
            Self::QuotaExhausted => "quota_exhausted",
            Self::RateLimited { .. } => "rate_limited",
            Self::Disabled => "disabled",
            Self::Error { .. } => "error",
        }
    }
}

/// Precedence: disabled (an admin decision) → error (the credential cannot work) → quota
/// exhausted (clear evidence) → rate limited (a live cooldown) → normal. An expired cooldown is
/// simply absent: the state returns to normal with it.
pub fn resolve_account_state(
    account: &AccountRecord,
    cooldown_until: Option<OffsetDateTime>,
    now: OffsetDateTime,
) -> AccountState {
    if !account.scheduling.enabled {
        return AccountState::Disabled;
    }
    if let CredentialSlot::Unreadable { .. } = account.credential {
        return AccountState::Error { reason: "credential_unreadable".to_owned() };
    }
    if account.credential_facts.state != CredentialState::Active {
        let reason = account
            .credential_facts
            .reason
            .clone()
            .unwrap_or_else(|| account.credential_facts.state.as_str().to_owned());
        return AccountState::Error { reason };
    }
    if account.quota.state == QuotaState::Exhausted {
        return AccountState::QuotaExhausted;
    }
    match cooldown_until {
        Some(until) if until > now => AccountState::RateLimited { until },
        _ => AccountState::Normal,
    }
}
