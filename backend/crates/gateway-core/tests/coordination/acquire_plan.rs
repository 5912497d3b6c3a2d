//! `acquire_plan::run`: the steps around `selection::decide`, over a store that records what
//! the plan asks of it. The adapters' storage is held to the plan by the contract suite.

use std::collections::HashMap;
use std::time::Duration;

use gateway_core::coordination::acquire_plan::{
    self, AcquireState, AdmissionRead, BindingWrite, CircuitRead, GrantWrites, PeriodSpend, ProbeClaim,
};
use gateway_core::coordination::{
    AccountCandidate, AccountFeedback, AccountLease, AcquireOutcome, AcquireRequest, AdmissionDenial, AdmissionLease,
    AdmissionLimits, AffinityKey, AffinityOutcome, AffinityRequest, BudgetKind, CircuitPolicy, CircuitReport,
    FenceToken, Grant, Ineligible, ReplacedAttempt, SpendBudgets, SpendPeriod, UnixMillis,
};
use gateway_core::domain::{AccountId, BootId, ClientKeyId, NanoUsd, ProviderKind, RequestId, RotationStrategy};
use gateway_core::fault::Fault;
use gateway_core::selection::{QuotaStanding, SlotState};

const NOW: UnixMillis = UnixMillis(10_000_000);
const KEY: ClientKeyId = ClientKeyId(9);
const SESSION: AffinityKey = AffinityKey([7; 32]);

/// What the plan read from and asked of the store, in order.
#[derive(Default)]
struct Store {
    circuit: CircuitRead,
    admission: AdmissionRead,
    spend: PeriodSpend,
    slots: HashMap<AccountId, SlotState>,
    binding: Option<AccountId>,
    steps: Vec<String>,
    grants: Vec<GrantWrites>,
}

impl AcquireState for Store {
    fn free_account_slot(&mut self, lease: &AccountLease) {
        self.steps.push(format!("free {}", lease.account));
        if let Some(slot) = self.slots.get_mut(&lease.account) {
            slot.in_flight -= 1;
        }
    }

    fn apply_feedback(&mut self, account: AccountId, _now: UnixMillis, _feedback: &AccountFeedback) {
        self.steps.push(format!("feedback {account}"));
    }

    fn apply_circuit_report(&mut self, _now: UnixMillis, report: &CircuitReport) {
        self.steps.push(format!("circuit report {:?}", report.outcome));
    }

    fn circuit(&mut self, _provider: ProviderKind, _now: UnixMillis) -> CircuitRead {
        self.steps.push("circuit".to_owned());
        self.circuit
    }

    fn admission(&mut self, _client_key: ClientKeyId, _now: UnixMillis) -> AdmissionRead {
        self.steps.push("admission".to_owned());
        self.admission
    }

    fn spent(&mut self, _client_key: ClientKeyId, _period: SpendPeriod) -> PeriodSpend {
        self.steps.push("spent".to_owned());
        self.spend
    }

    fn slot_state(&mut self, account: AccountId, _model: &str, _now: UnixMillis) -> SlotState {
        self.slots.get(&account).copied().unwrap_or_default()
    }

    fn binding(&mut self, _key: &AffinityKey, _now: UnixMillis) -> Option<AccountId> {
        self.binding
    }

    fn record_grant(&mut self, grant: &GrantWrites) -> FenceToken {
        self.grants.push(grant.clone());
        FenceToken(77)
    }
}

fn candidate(account: i64, cap: u32) -> AccountCandidate {
    AccountCandidate {
        account: AccountId(account),
        max_in_flight: cap,
        request_interval: Duration::ZERO,
        weight: 1,
        standing: QuotaStanding::default(),
    }
}

fn request(candidates: Vec<AccountCandidate>) -> AcquireRequest {
    AcquireRequest {
        request: RequestId::new(),
        owner: BootId::random(),
        provider: ProviderKind::Openai,
        model: "gpt-5".to_owned(),
        admission: None,
        candidates,
        strategy: RotationStrategy::Sticky,
        affinity: None,
        lease_ttl: Duration::from_secs(30),
        probe_ttl: Duration::from_secs(20),
        replaces: None,
    }
}

fn limits(max_concurrency: Option<u32>, requests_per_minute: Option<u32>, budgets: SpendBudgets) -> AdmissionLimits {
    AdmissionLimits {
        client_key: KEY,
        max_concurrency,
        requests_per_minute,
        budgets,
        period: SpendPeriod::at(time::OffsetDateTime::UNIX_EPOCH),
    }
}

fn granted(outcome: AcquireOutcome) -> Grant {
    match outcome {
        AcquireOutcome::Granted(grant) => grant,
        other => panic!("expected a grant, got {other:?}"),
    }
}

fn replaced(account: i64) -> ReplacedAttempt {
    ReplacedAttempt {
        lease: AccountLease { account: AccountId(account), token: FenceToken(1) },
        feedback: Some(AccountFeedback::Cooldown {
            duration: Duration::from_secs(60),
            fault: Fault::UsageLimitReached,
        }),
        circuit: Some(CircuitReport {
            provider: ProviderKind::Openai,
            outcome: None,
            probe: false,
            policy: CircuitPolicy { failure_threshold: 3, open_for: Duration::from_secs(30) },
        }),
    }
}

#[test]
fn the_replaced_attempt_is_released_first_even_when_the_circuit_then_refuses() {
    let mut store = Store {
        circuit: CircuitRead { opened: true, open_until: UnixMillis(NOW.0 + 4_000), probe_until: UnixMillis(0) },
        ..Store::default()
    };
    let mut wanted = request(vec![candidate(1, 1)]);
    wanted.replaces = Some(replaced(1));
    let outcome = acquire_plan::run(&mut store, NOW, &wanted);
    assert_eq!(outcome, AcquireOutcome::CircuitOpen { until: UnixMillis(NOW.0 + 4_000) });
    assert_eq!(store.steps, ["free 1", "feedback 1", "circuit report None", "circuit"]);
    assert!(store.grants.is_empty(), "a refusal writes no grant");
}

#[test]
fn a_half_open_circuit_lets_one_probe_through_and_claims_it() {
    let past = UnixMillis(NOW.0 - 1);
    let mut store =
        Store { circuit: CircuitRead { opened: true, open_until: past, probe_until: past }, ..Store::default() };
    let grant = granted(acquire_plan::run(&mut store, NOW, &request(vec![candidate(1, 1)])));
    assert!(grant.probe, "the first acquire of a half-open circuit is its probe");
    let claim = ProbeClaim { provider: ProviderKind::Openai, until: UnixMillis(NOW.0 + 20_000) };
    assert_eq!(store.grants[0].probe, Some(claim));

    // While that probe is in flight every other acquire is refused, told to retry within 5 s.
    for (probe_until, until) in [(NOW.0 + 2_000, NOW.0 + 2_000), (NOW.0 + 60_000, NOW.0 + 5_000)] {
        store.circuit.probe_until = UnixMillis(probe_until);
        let outcome = acquire_plan::run(&mut store, NOW, &request(vec![candidate(1, 1)]));
        assert_eq!(outcome, AcquireOutcome::CircuitOpen { until: UnixMillis(until) });
    }
    assert_eq!(store.grants.len(), 1);

    store.circuit = CircuitRead::default();
    assert!(!granted(acquire_plan::run(&mut store, NOW, &request(vec![candidate(1, 1)]))).probe);
}

#[test]
fn admission_checks_concurrency_then_rate_then_budgets_and_a_refusal_writes_nothing() {
    let spent = SpendBudgets { daily_tokens: Some(100), monthly_cost: Some(NanoUsd(5)), ..SpendBudgets::default() };
    let oldest = UnixMillis(NOW.0 - 45_000);
    let mut store = Store {
        admission: AdmissionRead { in_flight: 2, recent_starts: 10, oldest_start: Some(oldest) },
        spend: PeriodSpend { day_tokens: 100, month_cost: 5, ..PeriodSpend::default() },
        ..Store::default()
    };
    let mut wanted = request(vec![candidate(1, 1)]);
    let cases = [
        (limits(Some(2), Some(10), spent), AdmissionDenial::Concurrency { limit: 2, in_flight: 2 }),
        (
            limits(Some(3), Some(10), spent),
            AdmissionDenial::RequestsPerMinute { limit: 10, retry_after: Duration::from_secs(15) },
        ),
        (
            limits(Some(3), Some(11), spent),
            AdmissionDenial::Budget { kind: BudgetKind::DailyTokens, limit: 100, spent: 100 },
        ),
    ];
    for (limits, denial) in cases {
        wanted.admission = Some(limits);
        assert_eq!(acquire_plan::run(&mut store, NOW, &wanted), AcquireOutcome::AdmissionDenied(denial));
    }
    assert!(store.grants.is_empty(), "a refused acquire writes no grant");

    // Unlimited budgets are not read at all.
    store.steps.clear();
    wanted.admission = Some(limits(None, None, SpendBudgets::default()));
    granted(acquire_plan::run(&mut store, NOW, &wanted));
    assert!(!store.steps.contains(&"spent".to_owned()), "{:?}", store.steps);
}

#[test]
fn a_grant_writes_the_slots_of_the_limits_it_is_under() {
    let mut wanted = request(vec![candidate(1, 1), candidate(2, 3)]);
    wanted.admission = Some(limits(Some(4), Some(60), SpendBudgets::default()));
    let mut store = Store::default();
    store.slots.insert(AccountId(1), SlotState { in_flight: 1, ..SlotState::default() });
    store.slots.insert(AccountId(2), SlotState { in_flight: 1, ..SlotState::default() });
    let grant = granted(acquire_plan::run(&mut store, NOW, &wanted));
    let lease = AdmissionLease { client_key: KEY, request: wanted.request };
    assert_eq!(grant.account, AccountLease { account: AccountId(2), token: FenceToken(77) });
    assert_eq!((grant.in_flight, grant.admission, grant.now), (2, Some(lease), NOW));
    let writes = &store.grants[0];
    assert_eq!((writes.owner, writes.request, writes.account), (wanted.owner, wanted.request, AccountId(2)));
    assert_eq!((writes.now, writes.expires_at), (NOW, UnixMillis(NOW.0 + 30_000)));
    assert_eq!((writes.admission_slot, writes.counted_start), (Some(lease), Some(KEY)));
    assert_eq!((writes.binding, writes.probe), (BindingWrite::None, None));

    // Without a concurrency limit no admission slot is held; without a rate none is counted.
    for (concurrency, rate) in [(None, Some(60)), (Some(4), None)] {
        wanted.admission = Some(limits(concurrency, rate, SpendBudgets::default()));
        let grant = granted(acquire_plan::run(&mut store, NOW, &wanted));
        let writes = store.grants.last().expect("a grant");
        assert_eq!(grant.admission.is_some(), concurrency.is_some());
        assert_eq!(writes.admission_slot.is_some(), concurrency.is_some());
        assert_eq!(writes.counted_start.is_some(), rate.is_some());
    }
}

#[test]
fn the_binding_is_renewed_on_hit_and_bypass_and_moved_on_a_first_binding_or_rebinding() {
    let idle = Duration::from_secs(3600);
    let expires_at = UnixMillis(NOW.0 + 3_600_000);
    let at_cap = SlotState { in_flight: 1, ..SlotState::default() };
    let cooling = SlotState { cool_until: UnixMillis(NOW.0 + 1), ..SlotState::default() };
    let cases = [
        (Some(1), None, AffinityOutcome::Hit, BindingWrite::Renew { key: SESSION, expires_at }),
        (
            Some(1),
            Some(at_cap),
            AffinityOutcome::Bypassed { bound: AccountId(1) },
            BindingWrite::Renew { key: SESSION, expires_at },
        ),
        (None, None, AffinityOutcome::Bound, BindingWrite::Bind { key: SESSION, account: AccountId(1), expires_at }),
        (
            Some(1),
            Some(cooling),
            AffinityOutcome::Rebound { from: AccountId(1) },
            BindingWrite::Bind { key: SESSION, account: AccountId(2), expires_at },
        ),
    ];
    for (bound, state_of_1, affinity, write) in cases {
        let mut store = Store { binding: bound.map(AccountId), ..Store::default() };
        if let Some(state) = state_of_1 {
            store.slots.insert(AccountId(1), state);
        }
        let mut wanted = request(vec![candidate(1, 1), candidate(2, 1)]);
        wanted.affinity = Some(AffinityRequest { key: SESSION, idle_ttl: idle });
        let grant = granted(acquire_plan::run(&mut store, NOW, &wanted));
        assert_eq!(grant.affinity, affinity);
        assert_eq!(store.grants[0].binding, write, "{affinity:?}");
    }
}

#[test]
fn no_eligible_candidate_answers_every_verdict_and_writes_nothing() {
    let mut store = Store::default();
    store.slots.insert(AccountId(1), SlotState { in_flight: 1, ..SlotState::default() });
    store.slots.insert(AccountId(2), SlotState { excluded_until: UnixMillis(NOW.0 + 9), ..SlotState::default() });
    let outcome = acquire_plan::run(&mut store, NOW, &request(vec![candidate(1, 1), candidate(2, 1)]));
    let AcquireOutcome::NoAccount(none) = outcome else { panic!("expected no account, got {outcome:?}") };
    let reasons: Vec<_> = none.verdicts.iter().map(|v| (v.account, v.reason)).collect();
    assert_eq!(
        reasons,
        [
            (AccountId(1), Ineligible::AtCap { in_flight: 1, cap: 1 }),
            (AccountId(2), Ineligible::ModelExcluded { until: UnixMillis(NOW.0 + 9) })
        ]
    );
    assert_eq!(none.now, NOW);
    assert!(store.grants.is_empty());
}

#[test]
fn a_replaced_slot_is_freed_before_the_candidates_are_read() {
    let mut store = Store::default();
    store.slots.insert(AccountId(1), SlotState { in_flight: 1, ..SlotState::default() });
    let mut wanted = request(vec![candidate(1, 1)]);
    wanted.replaces = Some(ReplacedAttempt { feedback: None, circuit: None, ..replaced(1) });
    let grant = granted(acquire_plan::run(&mut store, NOW, &wanted));
    assert_eq!((grant.account.account, grant.in_flight), (AccountId(1), 1));
}
