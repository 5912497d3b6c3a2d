//! Client admission as the engine sees it: the limits a key brings to the acquire, and the
//! error a refused request gets (429 with `Retry-After`; a spent budget says when it resets).

use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;

use crate::coordination::{AdmissionDenial, AdmissionLimits, BudgetKind, SpendBudgets, SpendPeriod};
use crate::snapshot::KeyEntry;

pub(super) fn admission_limits(key: &KeyEntry, period: SpendPeriod) -> Option<AdmissionLimits> {
    let limits = &key.record.limits;
    let budgets = SpendBudgets {
        daily_tokens: limits.daily_token_budget,
        monthly_tokens: limits.monthly_token_budget,
        daily_cost: limits.daily_cost_budget,
        monthly_cost: limits.monthly_cost_budget,
    };
    (limits.max_concurrency.is_some() || limits.requests_per_minute.is_some() || !budgets.is_unlimited()).then_some(
        AdmissionLimits {
            client_key: key.record.id,
            max_concurrency: limits.max_concurrency,
            requests_per_minute: limits.requests_per_minute,
            budgets,
            period,
        },
    )
}

pub(super) fn admission_error(denial: AdmissionDenial, period: SpendPeriod) -> ApiError {
    match denial {
        AdmissionDenial::Concurrency { limit, .. } => ApiError::new(
            ErrorCode::ConcurrencyLimitExceeded,
            format!("This API key allows {limit} concurrent requests; wait for one to finish."),
        )
        .with_retry_after(1),
        AdmissionDenial::RequestsPerMinute { limit, retry_after } => {
            ApiError::new(ErrorCode::RateLimitExceeded, format!("This API key allows {limit} requests per minute."))
                .with_retry_after(retry_after.as_secs_f64().ceil() as u64)
        }
        AdmissionDenial::Budget { kind, limit, spent } => budget_error(kind, limit, spent, period),
    }
}

fn budget_error(kind: BudgetKind, limit: u64, spent: u64, period: SpendPeriod) -> ApiError {
    let resets_at = period.resets_at(kind);
    let wait = (resets_at - OffsetDateTime::now_utc()).whole_seconds().max(1);
    let (window, amount) = match kind {
        BudgetKind::DailyTokens => ("daily", format!("token budget of {limit} tokens ({spent} used)")),
        BudgetKind::MonthlyTokens => ("monthly", format!("token budget of {limit} tokens ({spent} used)")),
        BudgetKind::DailyCost => ("daily", format!("cost budget of {} ({} used)", nano_usd(limit), nano_usd(spent))),
        BudgetKind::MonthlyCost => {
            ("monthly", format!("cost budget of {} ({} used)", nano_usd(limit), nano_usd(spent)))
        }
    };
    let resets = resets_at
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| resets_at.unix_timestamp().to_string());
    ApiError::new(
        ErrorCode::BudgetExceeded,
        format!("This API key has used its {window} {amount}; it resets at {resets}."),
    )
    .with_retry_after(u64::try_from(wait).unwrap_or(1))
}

fn nano_usd(amount: u64) -> crate::domain::NanoUsd {
    crate::domain::NanoUsd(i64::try_from(amount).unwrap_or(i64::MAX))
}
