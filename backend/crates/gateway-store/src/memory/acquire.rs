//! `RequestSlots` in process: core's acquire plan ([`acquire_plan::run`]) over the maps under
//! the one mutex, and the release.

use async_trait::async_trait;
use gateway_core::coordination::acquire_plan::{
    self, AcquireState, AdmissionRead, BindingWrite, CircuitRead, GrantWrites, PeriodSpend,
};
use gateway_core::coordination::cooldown::MAX_MODEL_EXCLUSIONS;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{
    AccountFeedback, AccountLease, AcquireOutcome, AcquireRequest, AffinityKey, CircuitReport, CoordinationError,
    FenceToken, LeaseStatus, ReleaseOutcome, ReleaseRequest, RequestSlots, Spend, SpendPeriod, UnixMillis,
};
use gateway_core::domain::{AccountId, ClientKeyId, ProviderKind};
use gateway_core::selection::SlotState;

use super::{Expiring, MemoryCoordination, Phase, SlotRef, SpendWindow, SpendWindowPeriod, State, circuit};

#[async_trait]
impl RequestSlots for MemoryCoordination {
    async fn acquire(&self, request: &AcquireRequest) -> Result<AcquireOutcome, CoordinationError> {
        request.validate()?;
        let (mut state, now) = self.lock();
        Ok(acquire_plan::run(&mut *state, UnixMillis(now), request))
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

/// The in-process storage of core's acquire plan: plain maps under the one mutex.
impl AcquireState for State {
    fn free_account_slot(&mut self, lease: &AccountLease) {
        self.account(lease.account).slots.remove(&lease.token.0);
    }

    fn apply_feedback(&mut self, account: AccountId, now: UnixMillis, feedback: &AccountFeedback) {
        apply_feedback(self, account, now.0, feedback);
    }

    fn apply_circuit_report(&mut self, now: UnixMillis, report: &CircuitReport) {
        circuit::apply(self, now.0, report);
    }

    fn circuit(&mut self, provider: ProviderKind, _now: UnixMillis) -> CircuitRead {
        self.circuits.get(&provider).map_or_else(CircuitRead::default, |circuit| CircuitRead {
            opened: circuit.phase != Phase::Closed,
            open_until: UnixMillis(circuit.open_until),
            probe_until: UnixMillis(circuit.probe_until),
        })
    }

    fn admission(&mut self, client_key: ClientKeyId, now: UnixMillis) -> AdmissionRead {
        let admission = self.admission.entry(client_key).or_default();
        admission.trim(now.0);
        AdmissionRead {
            in_flight: u32::try_from(admission.slots.len()).unwrap_or(u32::MAX),
            recent_starts: u32::try_from(admission.recent.len()).unwrap_or(u32::MAX),
            oldest_start: admission.recent.front().copied().map(UnixMillis),
        }
    }

    fn spent(&mut self, client_key: ClientKeyId, period: SpendPeriod) -> PeriodSpend {
        let [day, month] =
            spend_windows(client_key, period).map(|window| self.spend.get(&window).copied().unwrap_or_default());
        PeriodSpend { day_tokens: day.tokens, day_cost: day.cost, month_tokens: month.tokens, month_cost: month.cost }
    }

    fn slot_state(&mut self, account: AccountId, model: &str, now: UnixMillis) -> SlotState {
        let account = self.account(account);
        account.slots.retain(|_, expiry| *expiry > now.0);
        SlotState {
            in_flight: u32::try_from(account.slots.len()).unwrap_or(u32::MAX),
            last_start: account.last_start.map(UnixMillis),
            cool_until: UnixMillis(account.cool_until),
            excluded_until: UnixMillis(account.exclusions.get(model).copied().unwrap_or(0)),
        }
    }

    fn binding(&mut self, key: &AffinityKey, now: UnixMillis) -> Option<AccountId> {
        self.affinity.get(key).filter(|binding| binding.live(now.0)).map(|binding| binding.value)
    }

    fn record_grant(&mut self, grant: &GrantWrites) -> FenceToken {
        let (now, expires_at) = (grant.now.0, grant.expires_at.0);
        let account = self.account(grant.account);
        // Seeded from the clock like the Redis counter: tokens stay monotonic across a restart.
        if account.fence == 0 {
            account.fence = now * 1000;
        }
        account.fence += 1;
        let token = account.fence;
        account.last_start = Some(now);
        account.slots.insert(token, expires_at);
        let owned = &mut self.boots.entry(grant.owner).or_default().slots;
        owned.insert(SlotRef::Account(grant.account, token), expires_at);
        if let Some(lease) = grant.admission_slot {
            owned.insert(SlotRef::Admission(lease.client_key, lease.request), expires_at);
            self.admission.entry(lease.client_key).or_default().slots.insert(lease.request, expires_at);
        }
        if let Some(client_key) = grant.counted_start {
            self.admission.entry(client_key).or_default().recent.push_back(now);
        }
        match grant.binding {
            BindingWrite::None => {}
            BindingWrite::Renew { key, expires_at } => {
                if let Some(binding) = self.affinity.get_mut(&key) {
                    binding.expires_at = expires_at.0;
                }
            }
            BindingWrite::Bind { key, account, expires_at } => {
                self.affinity.insert(key, Expiring { value: account, expires_at: expires_at.0 });
            }
        }
        if let Some(probe) = grant.probe
            && let Some(circuit) = self.circuits.get_mut(&probe.provider)
        {
            circuit.probe_until = probe.until.0;
        }
        FenceToken(token)
    }
}
