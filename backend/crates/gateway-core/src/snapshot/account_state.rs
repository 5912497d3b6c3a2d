//! The one resolver of the account state users see, derived from stored facts and the cooldown
//! held in coordination storage — never stored itself.

use serde::Serialize;
use time::OffsetDateTime;

use crate::domain::{AccountRecord, CredentialSlot, CredentialState, QuotaState};
use crate::fault::Fault;

/// A cooldown in force as the resolver reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoolingDown {
    pub until: OffsetDateTime,
    pub fault: Option<Fault>,
}

impl CoolingDown {
    /// The coordination store's cooldown (unix milliseconds) as a time, if representable.
    pub fn of(cooldown: crate::coordination::Cooldown) -> Option<Self> {
        let until = OffsetDateTime::from_unix_timestamp_nanos(i128::from(cooldown.until.0) * 1_000_000).ok()?;
        Some(Self { until, fault: cooldown.fault })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AccountState {
    Normal,
    QuotaExhausted,
    /// A cooldown runs (a rate limit, a challenge, a refused credential …): until when, and
    /// the fault row that set it (`None` when the store did not record one).
    RateLimited {
        #[serde(with = "time::serde::rfc3339")]
        until: OffsetDateTime,
        fault: Option<Fault>,
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
    cooldown: Option<CoolingDown>,
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
    match cooldown {
        Some(CoolingDown { until, fault }) if until > now => AccountState::RateLimited { until, fault },
        _ => AccountState::Normal,
    }
}
