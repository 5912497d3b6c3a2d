//! The acquire plan: every step of [`super::RequestSlots::acquire`] around
//! [`crate::selection::decide`], once, over the store's [`AcquireState`].
//!
//! 1. the replaced attempt (failover): its slot is freed, its feedback and circuit report are
//!    applied — whatever follows;
//! 2. the provider circuit: open refuses; half-open with its probe in flight refuses (retry in
//!    at most [`PROBE_RETRY`]); half-open without one lets this acquire take the probe;
//! 3. admission: concurrency, then requests per minute, then the spend budgets in
//!    [`BudgetKind::ALL`] order;
//! 4. the candidates' state and the session binding, read into a [`SelectionView`];
//! 5. [`decide`];
//! 6. the grant's writes ([`GrantWrites`]), all or nothing: a refusal at 2, 3 or 5 writes nothing.
//!
//! The in-process adapter (`gateway-store/src/memory/acquire.rs`) and the engine suite's
//! coordination fake run this plan over their own storage. `acquire.lua` is the one second
//! copy, since the Redis step must run inside the server; the contract suite's property test
//! (`coordination_contract/selection.rs`) holds it to this plan (decision 0343).

mod state;

use std::time::Duration;

pub use state::{AcquireState, AdmissionRead, BindingWrite, CircuitRead, GrantWrites, PeriodSpend, ProbeClaim};

use super::AffinityOutcome;
use super::account_slots::AccountLease;
use super::acquire::{AcquireOutcome, AcquireRequest, Grant, NoAccount};
use super::admission::{AdmissionDenial, AdmissionLease, AdmissionLimits, BudgetKind};
use super::affinity::AffinityKey;
use super::time::UnixMillis;
use crate::domain::AccountId;
use crate::selection::{Binding, CandidateView, Decision, SelectionView, decide};

/// The longest a request refused because the half-open probe is in flight is told to wait.
pub const PROBE_RETRY: Duration = Duration::from_secs(5);

/// The admission window of requests per minute.
const MINUTE_MS: u64 = 60_000;

/// Runs one acquire at the store's `now`. The request has been validated
/// ([`AcquireRequest::validate`]).
pub fn run<S: AcquireState + ?Sized>(state: &mut S, now: UnixMillis, request: &AcquireRequest) -> AcquireOutcome {
    release_replaced(state, now, request);
    let probe = match circuit_gate(state.circuit(request.provider, now), now) {
        Ok(probe) => probe,
        Err(until) => return AcquireOutcome::CircuitOpen { until },
    };
    if let Some(limits) = &request.admission
        && let Some(denial) = admission_denial(state, limits, now)
    {
        return AcquireOutcome::AdmissionDenied(denial);
    }
    let view = selection_view(state, now, request);
    let (index, affinity) = match decide(&view) {
        Decision::Chosen { index, affinity } => (index, affinity),
        Decision::NoAccount(verdicts) => return AcquireOutcome::NoAccount(NoAccount { verdicts, now }),
    };
    let writes = grant_writes(request, now, view.candidates[index].candidate.account, affinity, probe);
    let token = state.record_grant(&writes);
    AcquireOutcome::Granted(Grant {
        account: AccountLease { account: writes.account, token },
        admission: writes.admission_slot,
        in_flight: view.candidates[index].state.in_flight + 1,
        affinity,
        now,
        probe,
    })
}

/// Step 1: the failed attempt this acquire replaces.
fn release_replaced<S: AcquireState + ?Sized>(state: &mut S, now: UnixMillis, request: &AcquireRequest) {
    let Some(replaced) = &request.replaces else { return };
    state.free_account_slot(&replaced.lease);
    if let Some(feedback) = &replaced.feedback {
        state.apply_feedback(replaced.lease.account, now, feedback);
    }
    if let Some(report) = &replaced.circuit {
        state.apply_circuit_report(now, report);
    }
}

/// Step 2: `Err(until)` refuses; `Ok(true)` means this acquire takes the half-open probe.
fn circuit_gate(circuit: CircuitRead, now: UnixMillis) -> Result<bool, UnixMillis> {
    if !circuit.opened {
        Ok(false)
    } else if circuit.open_until > now {
        Err(circuit.open_until)
    } else if circuit.probe_until > now {
        Err(circuit.probe_until.min(now.after(PROBE_RETRY)))
    } else {
        Ok(true)
    }
}

/// Step 3: the first limit the key has reached, if any.
fn admission_denial<S: AcquireState + ?Sized>(
    state: &mut S,
    limits: &AdmissionLimits,
    now: UnixMillis,
) -> Option<AdmissionDenial> {
    let read = state.admission(limits.client_key, now);
    if let Some(limit) = limits.max_concurrency
        && read.in_flight >= limit
    {
        return Some(AdmissionDenial::Concurrency { limit, in_flight: read.in_flight });
    }
    if let Some(limit) = limits.requests_per_minute
        && read.recent_starts >= limit
    {
        let retry_ms = read.oldest_start.map_or(MINUTE_MS, |oldest| (oldest.0 + MINUTE_MS).saturating_sub(now.0));
        return Some(AdmissionDenial::RequestsPerMinute { limit, retry_after: Duration::from_millis(retry_ms) });
    }
    if limits.budgets.is_unlimited() {
        return None;
    }
    let spent = state.spent(limits.client_key, limits.period);
    BudgetKind::ALL.into_iter().find_map(|kind| {
        let limit = kind.limit(&limits.budgets)?;
        let spent = match kind {
            BudgetKind::DailyTokens => spent.day_tokens,
            BudgetKind::MonthlyTokens => spent.month_tokens,
            BudgetKind::DailyCost => spent.day_cost,
            BudgetKind::MonthlyCost => spent.month_cost,
        };
        (spent >= limit).then_some(AdmissionDenial::Budget { kind, limit, spent })
    })
}

/// Step 4: what [`decide`] reads.
fn selection_view<S: AcquireState + ?Sized>(state: &mut S, now: UnixMillis, request: &AcquireRequest) -> SelectionView {
    let candidates = request
        .candidates
        .iter()
        .map(|candidate| CandidateView {
            candidate: *candidate,
            state: state.slot_state(candidate.account, &request.model, now),
        })
        .collect();
    let binding = match &request.affinity {
        None => Binding::NotRequested,
        Some(wanted) => state.binding(&wanted.key, now).map_or(Binding::Unbound, Binding::Bound),
    };
    SelectionView {
        now,
        strategy: request.strategy,
        candidates,
        binding,
        replaced: request.replaces.as_ref().map(|replaced| replaced.lease.account),
    }
}

/// Step 6: every write of the grant of `account`.
fn grant_writes(
    request: &AcquireRequest,
    now: UnixMillis,
    account: AccountId,
    affinity: AffinityOutcome,
    probe: bool,
) -> GrantWrites {
    let expires_at = now.after(request.lease_ttl);
    let admission_slot = request.admission.and_then(|limits| {
        limits.max_concurrency.map(|_| AdmissionLease { client_key: limits.client_key, request: request.request })
    });
    let counted_start =
        request.admission.filter(|limits| limits.requests_per_minute.is_some()).map(|limits| limits.client_key);
    let binding = match request.affinity {
        None => BindingWrite::None,
        Some(wanted) => binding_write(wanted.key, now.after(wanted.idle_ttl), account, affinity),
    };
    let probe = probe.then(|| ProbeClaim { provider: request.provider, until: now.after(request.probe_ttl) });
    GrantWrites {
        owner: request.owner,
        request: request.request,
        account,
        now,
        expires_at,
        admission_slot,
        counted_start,
        binding,
        probe,
    }
}

/// A hit or a bypass keeps the binding and renews it; a first binding or a rebinding moves it.
fn binding_write(
    key: AffinityKey,
    expires_at: UnixMillis,
    account: AccountId,
    affinity: AffinityOutcome,
) -> BindingWrite {
    match affinity {
        AffinityOutcome::NotRequested => BindingWrite::None,
        AffinityOutcome::Hit | AffinityOutcome::Bypassed { .. } => BindingWrite::Renew { key, expires_at },
        AffinityOutcome::Bound | AffinityOutcome::Rebound { .. } => BindingWrite::Bind { key, account, expires_at },
    }
}
