//! Budget periods: UTC calendar days and months, and when each resets.

use gateway_core::coordination::{BudgetKind, SpendBudgets, SpendPeriod};
use gateway_core::domain::NanoUsd;
use time::macros::datetime;

#[test]
fn periods_are_utc_days_and_months_since_the_epoch() {
    assert_eq!(SpendPeriod::at(datetime!(1970-01-01 00:00 UTC)), SpendPeriod { day: 0, month: 0 });
    assert_eq!(SpendPeriod::at(datetime!(1970-02-01 00:00 UTC)), SpendPeriod { day: 31, month: 1 });
    let late = SpendPeriod::at(datetime!(2026-11-30 23:59:59 UTC));
    assert_eq!(late, SpendPeriod { day: 20_787, month: 682 });
    // Local time zones do not move the period: 01:00 in UTC+2 is still the previous UTC day.
    assert_eq!(SpendPeriod::at(datetime!(2026-12-01 01:00 +2)), late);
    assert_eq!(SpendPeriod::at(datetime!(2026-12-01 00:00 UTC)), SpendPeriod { day: 20_788, month: 683 });
}

#[test]
fn budgets_reset_at_the_next_utc_midnight_or_first_of_the_month() {
    let period = SpendPeriod::at(datetime!(2026-11-30 12:34 UTC));
    assert_eq!(period.resets_at(BudgetKind::DailyTokens), datetime!(2026-12-01 00:00 UTC));
    assert_eq!(period.resets_at(BudgetKind::DailyCost), datetime!(2026-12-01 00:00 UTC));
    assert_eq!(period.resets_at(BudgetKind::MonthlyTokens), datetime!(2026-12-01 00:00 UTC));
    let december = SpendPeriod::at(datetime!(2026-12-15 08:00 UTC));
    assert_eq!(december.resets_at(BudgetKind::DailyTokens), datetime!(2026-12-16 00:00 UTC));
    assert_eq!(december.resets_at(BudgetKind::MonthlyCost), datetime!(2027-01-01 00:00 UTC));
}

#[test]
fn budget_limits_read_tokens_and_nano_usd() {
    let budgets = SpendBudgets { daily_tokens: Some(10), monthly_cost: Some(NanoUsd(5)), ..SpendBudgets::default() };
    assert!(!budgets.is_unlimited());
    assert!(SpendBudgets::default().is_unlimited());
    assert_eq!(BudgetKind::DailyTokens.limit(&budgets), Some(10));
    assert_eq!(BudgetKind::MonthlyTokens.limit(&budgets), None);
    assert_eq!(BudgetKind::MonthlyCost.limit(&budgets), Some(5));
    for kind in BudgetKind::ALL {
        assert_eq!(BudgetKind::parse(kind.as_str()), Some(kind));
    }
    assert_eq!(BudgetKind::parse("weekly_tokens"), None);
}
