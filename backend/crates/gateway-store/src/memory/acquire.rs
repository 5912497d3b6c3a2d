//! `RequestSlots` in process; the same decision procedure as `redis/scripts/acquire.lua`.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::cooldown::MAX_MODEL_EXCLUSIONS;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{
    AccountFeedback, AccountLease, AcquireOutcome, AcquireRequest, AdmissionDenial, AdmissionLease, AdmissionLimits,
    AffinityOutcome, BudgetKind, CandidateVerdict, CoordinationError, FenceToken, Grant, Ineligible, LeaseStatus,
    NoAccount, PickStrategy, ReleaseOutcome, ReleaseRequest, RequestSlots, Spend, SpendPeriod, UnixMillis,
};
use gateway_core::domain::{AccountId, ClientKeyId};

use super::{Expiring, MemoryCoordination, SlotRef, SpendWindow, SpendWindowPeriod, State, circuit};

#[async_trait]
impl RequestSlots for MemoryCoordination {
    async fn acquire(&self, request: &AcquireRequest) -> Result<AcquireOutcome, CoordinationError> {
        request.validate()?;
        let (mut state, now) = self.lock();
        Ok(acquire(&mut state, now, request))
    }

    async fn release(&self, release: &ReleaseRequest) -> Result<ReleaseOutcome, CoordinationError> {
        let (mut state, now) = self.lock();
        let admission = match release.leases.admission {
            None => LeaseStatus::Absent,
            Some(lease) => {
                let removed = state.admission.get_mut(&lease.client_key).and_then(|a| a.slots.remove(&lease.request));
                released(removed, now)
            }
        };
        let account = match release.leases.account {
            None => LeaseStatus::Absent,
            Some(lease) => {
                let removed = state.account(lease.account).slots.remove(&lease.token.0);
                if let Some(feedback) = &release.feedback {
                    apply_feedback(&mut state, lease.account, now, feedback);
                }
                released(removed, now)
            }
        };
        if let Some(report) = &release.circuit {
            circuit::apply(&mut state, now, report);
        }
        if let Some(spend) = release.spend {
            add_spend(&mut state, &spend);
        }
        Ok(ReleaseOutcome { admission, account })
    }

    async fn check_account_lease(&self, lease: &AccountLease) -> Result<LeaseStatus, CoordinationError> {
        let (mut state, now) = self.lock();
        let live = state.account(lease.account).slots.get(&lease.token.0).is_some_and(|expiry| *expiry > now);
        Ok(if live { LeaseStatus::Held } else { LeaseStatus::Lost })
    }
}

fn spend_windows(client_key: ClientKeyId, period: SpendPeriod) -> [SpendWindow; 2] {
    [
        SpendWindow { client_key, period: SpendWindowPeriod::Day(period.day) },
        SpendWindow { client_key, period: SpendWindowPeriod::Month(period.month) },
    ]
}

fn add_spend(state: &mut State, spend: &Spend) {
    let cost = u64::try_from(spend.cost.0).unwrap_or(0);
    for window in spend_windows(spend.client_key, spend.period) {
        let spent = state.spend.entry(window).or_default();
        spent.tokens = spent.tokens.saturating_add(spend.tokens);
        spent.cost = spent.cost.saturating_add(cost);
    }
}

/// The first spent budget, in the order daily tokens, monthly tokens, daily cost, monthly cost.
fn budget_denial(state: &State, limits: &AdmissionLimits) -> Option<AdmissionDenial> {
    let [day, month] = spend_windows(limits.client_key, limits.period)
        .map(|window| state.spend.get(&window).copied().unwrap_or_default());
    BudgetKind::ALL.into_iter().find_map(|kind| {
        let limit = kind.limit(&limits.budgets)?;
        let spent = match kind {
            BudgetKind::DailyTokens => day.tokens,
            BudgetKind::MonthlyTokens => month.tokens,
            BudgetKind::DailyCost => day.cost,
            BudgetKind::MonthlyCost => month.cost,
        };
        (spent >= limit).then_some(AdmissionDenial::Budget { kind, limit, spent })
    })
}

fn released(removed: Option<u64>, now: u64) -> LeaseStatus {
    if removed.is_some_and(|expiry| expiry > now) { LeaseStatus::Held } else { LeaseStatus::Lost }
}

pub(super) fn apply_feedback(state: &mut State, account: AccountId, now: u64, feedback: &AccountFeedback) {
    let account = state.account(account);
    match feedback {
        AccountFeedback::Cooldown { duration } => {
            account.cool_until = account.cool_until.max(now + duration_millis(*duration));
        }
        AccountFeedback::ExcludeModel { model, ttl } => {
            account.exclusions.insert(model.clone(), now + duration_millis(*ttl));
            account.exclusions.retain(|_, until| *until > now);
            while account.exclusions.len() > MAX_MODEL_EXCLUSIONS {
                // Drop the exclusion that ends first, as ZREMRANGEBYRANK does.
                let soonest =
                    account.exclusions.iter().min_by_key(|(_, until)| **until).map(|(model, _)| model.clone());
                let Some(soonest) = soonest else { break };
                account.exclusions.remove(&soonest);
            }
        }
    }
}

fn acquire(state: &mut State, now: u64, request: &AcquireRequest) -> AcquireOutcome {
    let ttl = duration_millis(request.lease_ttl);
    // 1. The replaced attempt.
    if let Some(replaced) = &request.replaces {
        state.account(replaced.lease.account).slots.remove(&replaced.lease.token.0);
        if let Some(feedback) = &replaced.feedback {
            apply_feedback(state, replaced.lease.account, now, feedback);
        }
        if let Some(report) = &replaced.circuit {
            circuit::apply(state, now, report);
        }
    }
    // 2. Circuit: open refuses; half-open lets one probe through at a time.
    let probe = match circuit::admits(state, request.provider, now) {
        Ok(probe) => probe,
        Err(until) => return AcquireOutcome::CircuitOpen { until: UnixMillis(until) },
    };
    // 3. Admission.
    if let Some(limits) = request.admission {
        let admission = state.admission.entry(limits.client_key).or_default();
        admission.trim(now);
        if let Some(limit) = limits.max_concurrency {
            let in_flight = u32::try_from(admission.slots.len()).unwrap_or(u32::MAX);
            if in_flight >= limit {
                return AcquireOutcome::AdmissionDenied(AdmissionDenial::Concurrency { limit, in_flight });
            }
        }
        if let Some(limit) = limits.requests_per_minute
            && admission.recent.len() >= usize::try_from(limit).unwrap_or(usize::MAX)
        {
            let retry = admission.recent.front().map_or(60_000, |oldest| oldest + 60_000 - now);
            return AcquireOutcome::AdmissionDenied(AdmissionDenial::RequestsPerMinute {
                limit,
                retry_after: Duration::from_millis(retry),
            });
        }
        if let Some(denial) = budget_denial(state, &limits) {
            return AcquireOutcome::AdmissionDenied(denial);
        }
    }
    // 4. Verdicts.
    let mut verdicts: Vec<Option<Ineligible>> = Vec::with_capacity(request.candidates.len());
    let mut in_flight: Vec<u32> = Vec::with_capacity(request.candidates.len());
    for candidate in &request.candidates {
        let account = state.account(candidate.account);
        account.slots.retain(|_, expiry| *expiry > now);
        let held = u32::try_from(account.slots.len()).unwrap_or(u32::MAX);
        in_flight.push(held);
        let excluded_until = account.exclusions.get(&request.model).copied().unwrap_or(0);
        let interval = duration_millis(candidate.request_interval);
        let since_start = account.last_start.map(|start| now.saturating_sub(start));
        verdicts.push(if account.cool_until > now {
            Some(Ineligible::CoolingDown { until: UnixMillis(account.cool_until) })
        } else if excluded_until > now {
            Some(Ineligible::ModelExcluded { until: UnixMillis(excluded_until) })
        } else if held >= candidate.max_in_flight {
            Some(Ineligible::AtCap { in_flight: held, cap: candidate.max_in_flight })
        } else {
            since_start
                .filter(|since| interval > 0 && *since < interval)
                .map(|since| Ineligible::IntervalWait { wait: Duration::from_millis(interval - since) })
        });
    }
    // 5. Affinity.
    let index_of = |account: AccountId| request.candidates.iter().position(|c| c.account == account);
    let mut chosen = None;
    let mut affinity = AffinityOutcome::NotRequested;
    if let Some(wanted) = request.affinity {
        affinity = match state.affinity.get(&wanted.key).filter(|binding| binding.live(now)).map(|b| b.value) {
            None => AffinityOutcome::Bound,
            Some(bound) => match index_of(bound) {
                Some(i) if verdicts[i].is_none() => {
                    chosen = Some(i);
                    AffinityOutcome::Hit
                }
                Some(i)
                    if !matches!(
                        verdicts[i],
                        Some(Ineligible::CoolingDown { .. } | Ineligible::ModelExcluded { .. })
                    ) && request.replaces.as_ref().is_none_or(|r| r.lease.account != bound) =>
                {
                    AffinityOutcome::Bypassed { bound }
                }
                _ => AffinityOutcome::Rebound { from: bound },
            },
        };
    }
    // 6. Strategy.
    if chosen.is_none() {
        for (i, verdict) in verdicts.iter().enumerate() {
            if verdict.is_some() {
                continue;
            }
            match chosen {
                None => {
                    chosen = Some(i);
                    if request.strategy == PickStrategy::FirstEligible {
                        break;
                    }
                }
                Some(best) if in_flight[i] < in_flight[best] => chosen = Some(i),
                Some(_) => {}
            }
        }
    }
    let Some(chosen) = chosen else {
        let verdicts = request
            .candidates
            .iter()
            .zip(verdicts)
            .filter_map(|(candidate, reason)| {
                reason.map(|reason| CandidateVerdict { account: candidate.account, reason })
            })
            .collect();
        return AcquireOutcome::NoAccount(NoAccount { verdicts, now: UnixMillis(now) });
    };
    // 7. Record.
    let account_id = request.candidates[chosen].account;
    let account = state.account(account_id);
    // Seeded from the clock like the Redis counter: tokens stay monotonic across a restart.
    if account.fence == 0 {
        account.fence = now * 1000;
    }
    account.fence += 1;
    let token = account.fence;
    account.last_start = Some(now);
    account.slots.insert(token, now + ttl);
    let owned = &mut state.boots.entry(request.owner).or_default().slots;
    owned.insert(SlotRef::Account(account_id, token), now + ttl);
    let mut admission = None;
    if let Some(limits) = request.admission {
        if limits.max_concurrency.is_some() {
            owned.insert(SlotRef::Admission(limits.client_key, request.request), now + ttl);
        }
        let client = state.admission.entry(limits.client_key).or_default();
        if limits.max_concurrency.is_some() {
            client.slots.insert(request.request, now + ttl);
            admission = Some(AdmissionLease { client_key: limits.client_key, request: request.request });
        }
        if limits.requests_per_minute.is_some() {
            client.recent.push_back(now);
        }
    }
    if let Some(wanted) = request.affinity {
        let expires_at = now + duration_millis(wanted.idle_ttl);
        match affinity {
            AffinityOutcome::Hit | AffinityOutcome::Bypassed { .. } => {
                if let Some(binding) = state.affinity.get_mut(&wanted.key) {
                    binding.expires_at = expires_at;
                }
            }
            _ => {
                state.affinity.insert(wanted.key, Expiring { value: account_id, expires_at });
            }
        }
    }
    if probe && let Some(circuit) = state.circuits.get_mut(&request.provider) {
        circuit.probe_until = now + duration_millis(request.probe_ttl);
    }
    AcquireOutcome::Granted(Grant {
        account: AccountLease { account: account_id, token: FenceToken(token) },
        admission,
        in_flight: in_flight[chosen] + 1,
        affinity,
        now: UnixMillis(now),
        probe,
    })
}
