//! Client admission: per client key concurrency, requests per minute and spend budgets.
//!
//! Admission is decided inside [`super::RequestSlots::acquire`] together with the account
//! choice, so a request that gets no account consumes neither a concurrency slot nor a
//! requests-per-minute unit. Spend (tokens and cost) is added by the release after the
//! response, so budgets are checked against what finished requests spent: a request that
//! starts under its budget runs to the end, and the budget may be overshot by the requests in
//! flight when it is reached (a soft limit, documented in `docs/coordination.md`).

use std::time::Duration;

use time::{Date, Month, OffsetDateTime, Time};

use crate::domain::{ClientKeyId, NanoUsd, RequestId};

/// The limits of one client key, from the frozen snapshot. `None` means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmissionLimits {
    pub client_key: ClientKeyId,
    pub max_concurrency: Option<u32>,
    pub requests_per_minute: Option<u32>,
    pub budgets: SpendBudgets,
    /// The budget periods the request falls in.
    pub period: SpendPeriod,
}

/// Daily and monthly token and cost budgets of a client key; `None` means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SpendBudgets {
    pub daily_tokens: Option<u64>,
    pub monthly_tokens: Option<u64>,
    pub daily_cost: Option<NanoUsd>,
    pub monthly_cost: Option<NanoUsd>,
}

impl SpendBudgets {
    pub fn is_unlimited(&self) -> bool {
        *self == Self::default()
    }
}

/// Which budget refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BudgetKind {
    DailyTokens,
    MonthlyTokens,
    DailyCost,
    MonthlyCost,
}

impl BudgetKind {
    pub const ALL: [BudgetKind; 4] = [Self::DailyTokens, Self::MonthlyTokens, Self::DailyCost, Self::MonthlyCost];

    /// The stable name used on the wire of the coordination store and in error messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::DailyTokens => "daily_tokens",
            Self::MonthlyTokens => "monthly_tokens",
            Self::DailyCost => "daily_cost",
            Self::MonthlyCost => "monthly_cost",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == text)
    }

    pub const fn is_daily(self) -> bool {
        matches!(self, Self::DailyTokens | Self::DailyCost)
    }

    /// The limit of this kind in `budgets`, in tokens or nano-USD.
    pub fn limit(self, budgets: &SpendBudgets) -> Option<u64> {
        let cost = |c: Option<NanoUsd>| c.map(|c| u64::try_from(c.0).unwrap_or(0));
        match self {
            Self::DailyTokens => budgets.daily_tokens,
            Self::MonthlyTokens => budgets.monthly_tokens,
            Self::DailyCost => cost(budgets.daily_cost),
            Self::MonthlyCost => cost(budgets.monthly_cost),
        }
    }
}

/// The UTC calendar day and month a request's spend counts towards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpendPeriod {
    /// Days since 1970-01-01 (UTC).
    pub day: i32,
    /// Months since 1970-01 (UTC).
    pub month: i32,
}

impl SpendPeriod {
    pub fn at(instant: OffsetDateTime) -> Self {
        let date = instant.to_offset(time::UtcOffset::UTC).date();
        let day = i32::try_from(instant.unix_timestamp().div_euclid(86_400)).unwrap_or(i32::MAX);
        let month = (date.year() - 1970) * 12 + i32::from(u8::from(date.month())) - 1;
        Self { day, month }
    }

    /// When the period of `kind` that contains this one ends (the next UTC midnight or first of
    /// the month).
    pub fn resets_at(self, kind: BudgetKind) -> OffsetDateTime {
        let epoch = OffsetDateTime::UNIX_EPOCH;
        if kind.is_daily() {
            return epoch + time::Duration::days(i64::from(self.day) + 1);
        }
        let next = self.month + 1;
        let (year, month0) = (1970 + next.div_euclid(12), next.rem_euclid(12));
        let month = u8::try_from(month0 + 1).ok().and_then(|m| Month::try_from(m).ok()).unwrap_or(Month::January);
        Date::from_calendar_date(year, month, 1).map_or(epoch, |date| date.with_time(Time::MIDNIGHT).assume_utc())
    }
}

/// What one finished request spent, added to its key's day and month counters by the release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spend {
    pub client_key: ClientKeyId,
    pub period: SpendPeriod,
    pub tokens: u64,
    pub cost: NanoUsd,
}

/// A held client concurrency slot, identified by the request. Exists only when the key has a
/// concurrency limit. Expires by its TTL if never released (dead process).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AdmissionLease {
    pub client_key: ClientKeyId,
    pub request: RequestId,
}

/// Why admission refused the request. Nothing was recorded for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdmissionDenial {
    /// `in_flight` requests of this key already hold slots (`in_flight >= limit`).
    Concurrency { limit: u32, in_flight: u32 },
    /// The key made `limit` requests in the last 60 s; the oldest leaves the window after
    /// `retry_after`.
    RequestsPerMinute { limit: u32, retry_after: Duration },
    /// The key's finished requests of this period spent `spent >= limit` (tokens or nano-USD).
    Budget { kind: BudgetKind, limit: u64, spent: u64 },
}

impl AdmissionDenial {
    /// The stable reason label (`concurrency`, `requests_per_minute`, `budget`).
    pub const fn reason(&self) -> &'static str {
        match self {
            Self::Concurrency { .. } => "concurrency",
            Self::RequestsPerMinute { .. } => "requests_per_minute",
            Self::Budget { .. } => "budget",
        }
    }
}
