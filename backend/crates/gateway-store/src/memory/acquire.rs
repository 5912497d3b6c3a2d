//! `RequestSlots` in process: reads the state under the one mutex, lets core's
//! [`decide`] choose, records the choice.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::cooldown::MAX_MODEL_EXCLUSIONS;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{
    AccountFeedback, AccountLease, AcquireOutcome, AcquireRequest, AdmissionDenial, AdmissionLease, AdmissionLimits,
    AffinityOutcome, BudgetKind, CoordinationError, FenceToken, Grant, LeaseStatus, NoAccount, ReleaseOutcome,
    ReleaseRequest, RequestSlots, Spend, SpendPeriod, UnixMillis,
};
use gateway_core::domain::{AccountId, ClientKeyId};
use gateway_core::selection::{Binding, CandidateView, Decision, SelectionView, SlotState, decide};

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
        AccountFeedback::Cooldown { duration, fault } => {
            let until = now + duration_millis(*duration);
            if until > account.cool_until {
                account.cool_until = until;
                account.cool_fault = Some(*fault);
            }
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
    // 4–6. Read the candidates' state and the binding; the decision is core's.
    let view = selection_view(state, now, request);
    let (chosen, affinity) = match decide(&view) {
        Decision::Chosen { index, affinity } => (index, affinity),
        Decision::NoAccount(verdicts) => {
            return AcquireOutcome::NoAccount(NoAccount { verdicts, now: UnixMillis(now) });
        }
    };
    let in_flight = view.candidates[chosen].state.in_flight;
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
        in_flight: in_flight + 1,
        affinity,
        now: UnixMillis(now),
        probe,
    })
}

/// What the decision reads, after expired slots are trimmed.
fn selection_view(state: &mut State, now: u64, request: &AcquireRequest) -> SelectionView {
    let candidates = request
        .candidates
        .iter()
        .map(|candidate| {
            let account = state.account(candidate.account);
            account.slots.retain(|_, expiry| *expiry > now);
            let state = SlotState {
                in_flight: u32::try_from(account.slots.len()).unwrap_or(u32::MAX),
                last_start: account.last_start.map(UnixMillis),
                cool_until: UnixMillis(account.cool_until),
                excluded_until: UnixMillis(account.exclusions.get(&request.model).copied().unwrap_or(0)),
            };
            CandidateView { candidate: *candidate, state }
        })
        .collect();
    let binding = match request.affinity {
        None => Binding::NotRequested,
        Some(wanted) => state
            .affinity
            .get(&wanted.key)
            .filter(|binding| binding.live(now))
            .map_or(Binding::Unbound, |binding| Binding::Bound(binding.value)),
    };
    SelectionView {
        now: UnixMillis(now),
        strategy: request.strategy,
        candidates,
        binding,
        replaced: request.replaces.as_ref().map(|r| r.lease.account),
    }
}
