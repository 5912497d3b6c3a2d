//! Contract: client key spend budgets — the release adds a finished request's tokens and cost to
//! its key's UTC day and month counters; the acquire refuses once a budget is spent, records
//! nothing when it refuses, and a new period starts from zero.

use std::sync::Arc;

use anyhow::{bail, ensure};
use gateway_core::coordination::{
    AcquireOutcome, AdmissionDenial, AdmissionLimits, BudgetKind, Coordination, ReleaseRequest, Spend, SpendBudgets,
    SpendPeriod,
};
use gateway_core::domain::{ClientKeyId, NanoUsd};

use super::fixtures::{account, candidate, granted, limits, request};

const TODAY: SpendPeriod = SpendPeriod { day: 20_422, month: 670 };
const TOMORROW: SpendPeriod = SpendPeriod { day: 20_423, month: 670 };
const NEXT_MONTH: SpendPeriod = SpendPeriod { day: 20_452, month: 671 };

fn budgeted(key: ClientKeyId, budgets: SpendBudgets, period: SpendPeriod) -> AdmissionLimits {
    AdmissionLimits { budgets, period, ..limits(key, None, None) }
}

/// Acquires under `admission`, then releases as a finished request that spent `tokens` and
/// `cost`; fails if the acquire is refused.
async fn spend<C: Coordination>(port: &C, admission: AdmissionLimits, tokens: u64, cost: i64) -> anyhow::Result<()> {
    let mut wanted = request(vec![candidate(account(40), 100)]);
    wanted.admission = Some(admission);
    let grant = granted(port.acquire(&wanted).await?)?;
    let spend = Spend { client_key: admission.client_key, period: admission.period, tokens, cost: NanoUsd(cost) };
    port.release(&ReleaseRequest { leases: grant.held(), feedback: None, spend: Some(spend), circuit: None }).await?;
    Ok(())
}

async fn denial<C: Coordination>(port: &C, admission: AdmissionLimits) -> anyhow::Result<Option<AdmissionDenial>> {
    let mut wanted = request(vec![candidate(account(41), 1)]);
    wanted.admission = Some(admission);
    match port.acquire(&wanted).await? {
        AcquireOutcome::AdmissionDenied(denial) => Ok(Some(denial)),
        AcquireOutcome::Granted(grant) => {
            port.release(&ReleaseRequest { leases: grant.held(), feedback: None, spend: None, circuit: None }).await?;
            Ok(None)
        }
        other => bail!("expected a grant or an admission denial, got {other:?}"),
    }
}

pub async fn spend_budgets_refuse_once_spent<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let key = ClientKeyId(70);
    let tokens = SpendBudgets { daily_tokens: Some(100), monthly_tokens: Some(200), ..SpendBudgets::default() };
    let today = budgeted(key, tokens, TODAY);
    spend(&*port, today, 60, 10).await?;
    ensure!(denial(&*port, today).await?.is_none(), "60 of 100 daily tokens spent: admitted");
    spend(&*port, today, 50, 10).await?;
    let refused = denial(&*port, today).await?;
    ensure!(
        refused == Some(AdmissionDenial::Budget { kind: BudgetKind::DailyTokens, limit: 100, spent: 110 }),
        "110 of 100 daily tokens: {refused:?}"
    );
    // A refused acquire took no slot: the cap-1 account is still free for a request without limits.
    let free = granted(port.acquire(&request(vec![candidate(account(41), 1)])).await?)?;
    port.release(&ReleaseRequest { leases: free.held(), feedback: None, spend: None, circuit: None }).await?;

    // The next day starts from zero, but the month keeps counting.
    let tomorrow = budgeted(key, tokens, TOMORROW);
    ensure!(denial(&*port, tomorrow).await?.is_none(), "a new day is admitted");
    spend(&*port, tomorrow, 95, 0).await?;
    let refused = denial(&*port, tomorrow).await?;
    ensure!(
        refused == Some(AdmissionDenial::Budget { kind: BudgetKind::MonthlyTokens, limit: 200, spent: 205 }),
        "95 of 100 daily but 205 of 200 monthly tokens: {refused:?}"
    );
    ensure!(denial(&*port, budgeted(key, tokens, NEXT_MONTH)).await?.is_none(), "a new month is admitted");

    // Cost budgets, in nano-USD; reaching the limit exactly is spent.
    let cost_key = ClientKeyId(71);
    let cost = SpendBudgets { daily_cost: Some(NanoUsd(1_000)), ..SpendBudgets::default() };
    spend(&*port, budgeted(cost_key, cost, TODAY), 5, 1_000).await?;
    let refused = denial(&*port, budgeted(cost_key, cost, TODAY)).await?;
    ensure!(
        refused == Some(AdmissionDenial::Budget { kind: BudgetKind::DailyCost, limit: 1_000, spent: 1_000 }),
        "1,000 of 1,000 nano-USD: {refused:?}"
    );
    let monthly = SpendBudgets { monthly_cost: Some(NanoUsd(999)), ..SpendBudgets::default() };
    let refused = denial(&*port, budgeted(cost_key, monthly, TOMORROW)).await?;
    ensure!(
        refused == Some(AdmissionDenial::Budget { kind: BudgetKind::MonthlyCost, limit: 999, spent: 1_000 }),
        "the month holds yesterday's cost: {refused:?}"
    );

    // Other keys are not charged for it.
    ensure!(denial(&*port, budgeted(ClientKeyId(72), tokens, TODAY)).await?.is_none(), "another key is admitted");
    Ok(())
}

/// Spend counts for every key, so a budget set in the middle of a period applies to what the
/// key already spent in it.
pub async fn spend_counts_before_a_budget_is_set<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let key = ClientKeyId(73);
    let unlimited = limits(key, None, None);
    let mut wanted = request(vec![candidate(account(42), 10)]);
    wanted.admission = Some(unlimited);
    let grant = granted(port.acquire(&wanted).await?)?;
    let spent = Spend { client_key: key, period: unlimited.period, tokens: 500, cost: NanoUsd(0) };
    port.release(&ReleaseRequest { leases: grant.held(), feedback: None, spend: Some(spent), circuit: None }).await?;
    // A release without any lease (the request held none) still adds its spend.
    let spent_again = Spend { tokens: 20, ..spent };
    port.release(&ReleaseRequest { spend: Some(spent_again), ..ReleaseRequest::default() }).await?;

    let now_budgeted = SpendBudgets { daily_tokens: Some(400), ..SpendBudgets::default() };
    let refused = denial(&*port, budgeted(key, now_budgeted, unlimited.period)).await?;
    ensure!(
        refused == Some(AdmissionDenial::Budget { kind: BudgetKind::DailyTokens, limit: 400, spent: 520 }),
        "spend from before the budget counts: {refused:?}"
    );
    Ok(())
}
