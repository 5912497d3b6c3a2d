//! `selection::decide`: every strategy as SPEC §4 describes it, hard filters, weights and the
//! session binding. The adapters are held to the same answers by the contract suite's property
//! test (`gateway-store/tests/coordination_contract/selection.rs`).

use std::time::Duration;

use gateway_core::coordination::{AccountCandidate, AffinityOutcome, Ineligible, UnixMillis};
use gateway_core::domain::{AccountId, RotationStrategy};
use gateway_core::selection::{
    Binding, CandidateView, Decision, QuotaStanding, SelectionView, SlotState, decide, ranks, strategy_words,
};

const NOW: UnixMillis = UnixMillis(1_000_000);

struct Offer {
    weight: u32,
    cap: u32,
    used: u32,
    reset: Option<i64>,
    in_flight: u32,
    last_start: Option<u64>,
}

fn offer() -> Offer {
    Offer { weight: 1, cap: 10, used: 0, reset: None, in_flight: 0, last_start: None }
}

fn view(strategy: RotationStrategy, offers: Vec<Offer>) -> SelectionView {
    let candidates = offers
        .into_iter()
        .enumerate()
        .map(|(i, o)| CandidateView {
            candidate: AccountCandidate {
                account: AccountId(i64::try_from(i).unwrap_or(0) + 1),
                max_in_flight: o.cap,
                request_interval: Duration::ZERO,
                weight: o.weight,
                standing: QuotaStanding { used_basis_points: o.used, next_reset: o.reset },
            },
            state: SlotState {
                in_flight: o.in_flight,
                last_start: o.last_start.map(UnixMillis),
                ..SlotState::default()
            },
        })
        .collect();
    SelectionView { now: NOW, strategy, candidates, binding: Binding::NotRequested, replaced: None }
}

/// The chosen account id (1-based list position).
fn chosen(view: &SelectionView) -> Option<i64> {
    match decide(view) {
        Decision::Chosen { index, .. } => Some(view.candidates[index].candidate.account.0),
        Decision::NoAccount(_) => None,
    }
}

#[test]
fn smart_prefers_fewest_in_flight_per_weight() {
    let busy =
        view(RotationStrategy::Smart, vec![Offer { in_flight: 2, ..offer() }, Offer { in_flight: 1, ..offer() }]);
    assert_eq!(chosen(&busy), Some(2), "1 in flight beats 2");
    // 2 slots on weight 3 (0.67 per weight) beat 1 slot on weight 1.
    let weighted = view(
        RotationStrategy::Smart,
        vec![Offer { in_flight: 1, ..offer() }, Offer { in_flight: 2, weight: 3, ..offer() }],
    );
    assert_eq!(chosen(&weighted), Some(2));
}

#[test]
fn smart_breaks_load_ties_by_window_usage_then_reset_then_last_use_then_weight() {
    let usage = view(RotationStrategy::Smart, vec![Offer { used: 5_000, ..offer() }, Offer { used: 1_000, ..offer() }]);
    assert_eq!(chosen(&usage), Some(2), "less of the window used");
    let reset = view(
        RotationStrategy::Smart,
        vec![Offer { reset: Some(900), ..offer() }, Offer { reset: Some(100), ..offer() }, offer()],
    );
    assert_eq!(chosen(&reset), Some(2), "earliest reset; unknown resets last");
    let last_use = view(
        RotationStrategy::Smart,
        vec![Offer { last_start: Some(500), ..offer() }, Offer { last_start: Some(400), ..offer() }],
    );
    assert_eq!(chosen(&last_use), Some(2), "least recently used");
    let fresh = view(RotationStrategy::Smart, vec![Offer { last_start: Some(400), ..offer() }, offer()]);
    assert_eq!(chosen(&fresh), Some(2), "never used before any used one");
    let weight = view(RotationStrategy::Smart, vec![offer(), Offer { weight: 5, ..offer() }]);
    assert_eq!(chosen(&weight), Some(2), "the heavier on a full tie");
    let list = view(RotationStrategy::Smart, vec![offer(), offer()]);
    assert_eq!(chosen(&list), Some(1), "then the engine's order");
}

#[test]
fn quota_reset_priority_prefers_the_soonest_reset_over_load() {
    let v = view(
        RotationStrategy::QuotaResetPriority,
        vec![
            Offer { reset: None, ..offer() },
            Offer { reset: Some(2_000), ..offer() },
            Offer { reset: Some(1_000), in_flight: 3, ..offer() },
        ],
    );
    assert_eq!(chosen(&v), Some(3));
    let load = view(
        RotationStrategy::QuotaResetPriority,
        vec![Offer { in_flight: 2, ..offer() }, Offer { in_flight: 1, ..offer() }],
    );
    assert_eq!(chosen(&load), Some(2), "equal resets: in flight per weight");
}

#[test]
fn round_robin_takes_the_least_recently_started() {
    let v = view(
        RotationStrategy::RoundRobin,
        vec![
            Offer { last_start: Some(900), ..offer() },
            Offer { last_start: Some(300), in_flight: 5, ..offer() },
            Offer { last_start: Some(600), ..offer() },
        ],
    );
    assert_eq!(chosen(&v), Some(2), "load does not matter, the rotation does");
    let fresh = view(RotationStrategy::RoundRobin, vec![Offer { last_start: Some(1), ..offer() }, offer()]);
    assert_eq!(chosen(&fresh), Some(2), "a never-used account joins the rotation first");
    let tie = view(RotationStrategy::RoundRobin, vec![offer(), Offer { weight: 2, ..offer() }]);
    assert_eq!(chosen(&tie), Some(2), "ties to the heavier");
}

#[test]
fn sticky_stays_on_the_last_used_while_it_is_eligible() {
    let offers = || {
        vec![
            Offer { last_start: Some(300), weight: 100, ..offer() },
            Offer { last_start: Some(900), cap: 2, in_flight: 1, ..offer() },
            offer(),
        ]
    };
    assert_eq!(chosen(&view(RotationStrategy::Sticky, offers())), Some(2), "last used, not heaviest");
    let mut full = view(RotationStrategy::Sticky, offers());
    full.candidates[1].state.in_flight = 2;
    assert_eq!(chosen(&full), Some(1), "at its cap: the next most recent");
    let fresh = view(RotationStrategy::Sticky, vec![offer(), Offer { weight: 3, ..offer() }]);
    assert_eq!(chosen(&fresh), Some(2), "nothing used yet: the heavier");
}

#[test]
fn hard_filters_come_first_in_order() {
    let mut v =
        view(RotationStrategy::Smart, vec![offer(), offer(), Offer { cap: 1, in_flight: 1, ..offer() }, offer()]);
    v.candidates[0].state.cool_until = UnixMillis(NOW.0 + 10);
    v.candidates[0].state.excluded_until = UnixMillis(NOW.0 + 10);
    v.candidates[1].state.excluded_until = UnixMillis(NOW.0 + 20);
    v.candidates[3].candidate.request_interval = Duration::from_millis(100);
    v.candidates[3].state.last_start = Some(UnixMillis(NOW.0 - 40));
    let Decision::NoAccount(verdicts) = decide(&v) else { panic!("nothing is eligible") };
    let reasons: Vec<Ineligible> = verdicts.iter().map(|v| v.reason).collect();
    assert_eq!(
        reasons,
        vec![
            Ineligible::CoolingDown { until: UnixMillis(NOW.0 + 10) },
            Ineligible::ModelExcluded { until: UnixMillis(NOW.0 + 20) },
            Ineligible::AtCap { in_flight: 1, cap: 1 },
            Ineligible::IntervalWait { wait: Duration::from_millis(60) },
        ]
    );
    // An ended cooldown, exclusion and interval no longer filter.
    v.candidates[0].state.cool_until = NOW;
    v.candidates[0].state.excluded_until = NOW;
    assert_eq!(chosen(&v), Some(1));
    v.candidates[0].state.cool_until = UnixMillis(NOW.0 + 1);
    v.candidates[1].state.excluded_until = NOW;
    v.candidates[3].state.last_start = Some(UnixMillis(NOW.0 - 100));
    assert_eq!(chosen(&v), Some(2));
}

#[test]
fn the_session_binding_wins_while_healthy() {
    let strategy = RotationStrategy::Smart;
    let mut v = view(strategy, vec![offer(), Offer { in_flight: 3, cap: 4, ..offer() }]);
    v.binding = Binding::Unbound;
    assert_eq!(decide(&v), Decision::Chosen { index: 0, affinity: AffinityOutcome::Bound });
    v.binding = Binding::Bound(AccountId(2));
    assert_eq!(decide(&v), Decision::Chosen { index: 1, affinity: AffinityOutcome::Hit }, "over the strategy");
    v.candidates[1].state.in_flight = 4;
    assert_eq!(
        decide(&v),
        Decision::Chosen { index: 0, affinity: AffinityOutcome::Bypassed { bound: AccountId(2) } },
        "only busy: bypassed, kept"
    );
    v.replaced = Some(AccountId(2));
    assert_eq!(
        decide(&v),
        Decision::Chosen { index: 0, affinity: AffinityOutcome::Rebound { from: AccountId(2) } },
        "it failed: rebound"
    );
    v.replaced = None;
    v.candidates[1].state.in_flight = 0;
    v.candidates[1].state.cool_until = UnixMillis(NOW.0 + 5);
    assert_eq!(
        decide(&v),
        Decision::Chosen { index: 0, affinity: AffinityOutcome::Rebound { from: AccountId(2) } },
        "cooling down: rebound"
    );
    v.binding = Binding::Bound(AccountId(9));
    assert_eq!(
        decide(&v),
        Decision::Chosen { index: 0, affinity: AffinityOutcome::Rebound { from: AccountId(9) } },
        "not offered: rebound"
    );
}

#[test]
fn ranks_are_dense_and_strategy_specific() {
    let standings = [
        QuotaStanding { used_basis_points: 500, next_reset: Some(10) },
        QuotaStanding { used_basis_points: 100, next_reset: Some(30) },
        QuotaStanding { used_basis_points: 500, next_reset: Some(10) },
        QuotaStanding { used_basis_points: 100, next_reset: None },
    ];
    assert_eq!(ranks(&standings, RotationStrategy::Smart), vec![2, 0, 2, 1]);
    assert_eq!(ranks(&standings, RotationStrategy::QuotaResetPriority), vec![0, 1, 0, 2]);
    assert_eq!(ranks(&standings, RotationStrategy::Sticky), vec![0, 0, 0, 0]);
    assert_eq!(strategy_words(RotationStrategy::Smart), "load rank lru heavy");
}
