//! The random pools of the acquire property test (`selection.rs`): accounts with their slot,
//! cooldown, exclusion and interval state, a session binding, a failover replacement, client
//! admission and the provider circuit.

use gateway_core::coordination::SpendBudgets;
use gateway_core::domain::{NanoUsd, RotationStrategy};
use proptest::prelude::*;

/// One account of a generated pool and the state set up for it before the checked acquire.
#[derive(Debug, Clone)]
pub struct Member {
    pub cap: u32,
    pub weight: u32,
    pub used_basis_points: u32,
    pub next_reset: Option<i64>,
    pub held: u32,
    pub started: bool,
    pub cooling: bool,
    pub excluded: bool,
    pub paced: bool,
}

#[derive(Debug, Clone)]
pub struct Pool {
    pub strategy: RotationStrategy,
    pub members: Vec<Member>,
    /// The order in which the members' slots were taken (sets the last starts).
    pub start_order: Vec<usize>,
    /// `None` = no session; `Some(None)` = a session without binding; `Some(Some(i))` bound to
    /// member `i` (an index past the pool = an account that is not offered).
    pub binding: Option<Option<usize>>,
    /// A member whose held slot the acquire replaces (failover).
    pub replaces: Option<usize>,
    /// Client admission of the checked acquire.
    pub admission: Option<Admission>,
    pub circuit: Circuit,
}

/// The provider circuit when the checked acquire runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Circuit {
    Closed,
    /// Its open period ended and no probe is out: the acquire takes the probe.
    HalfOpen,
    /// Half-open with another request's probe in flight: the acquire is refused.
    ProbeInFlight,
}

/// A client key's limits, the requests of it already admitted (and still holding slots) and
/// what its finished requests spent (tokens and nano-USD) this day and month.
#[derive(Debug, Clone)]
pub struct Admission {
    pub max_concurrency: Option<u32>,
    pub requests_per_minute: Option<u32>,
    pub budgets: SpendBudgets,
    pub held: u32,
    pub spent_tokens: u64,
    pub spent_cost: i64,
}

fn admission() -> impl Strategy<Value = Admission> {
    let budget = || prop::option::weighted(0.3, 0u64..=3);
    let budgets = (budget(), budget(), budget(), budget()).prop_map(|(daily_tokens, monthly_tokens, day, month)| {
        SpendBudgets { daily_tokens, monthly_tokens, daily_cost: day.map(cost), monthly_cost: month.map(cost) }
    });
    (prop::option::of(0u32..=3), prop::option::of(0u32..=3), budgets, 0u32..=2, 0u64..=3, 0i64..=3).prop_map(
        |(max_concurrency, requests_per_minute, budgets, held, spent_tokens, spent_cost)| Admission {
            max_concurrency,
            requests_per_minute,
            budgets,
            held,
            spent_tokens,
            spent_cost,
        },
    )
}

fn cost(nano_usd: u64) -> NanoUsd {
    NanoUsd(i64::try_from(nano_usd).unwrap_or(i64::MAX))
}

pub fn member() -> impl Strategy<Value = Member> {
    (
        1u32..=3,
        prop::sample::select(vec![1u32, 2, 3, 50, 100]),
        prop::sample::select(vec![0u32, 2_500, 5_000, 10_000]),
        prop::sample::select(vec![None, Some(1_000i64), Some(2_000)]),
        0u32..=3,
        any::<bool>(),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(cap, weight, used_basis_points, next_reset, held, started, cooling, excluded, paced)| Member {
            cap,
            weight,
            used_basis_points,
            next_reset,
            held: held.min(cap),
            started,
            cooling,
            excluded,
            paced,
        })
}

pub fn pool() -> impl Strategy<Value = Pool> {
    let strategy = prop::sample::select(vec![
        RotationStrategy::Smart,
        RotationStrategy::QuotaResetPriority,
        RotationStrategy::RoundRobin,
        RotationStrategy::Sticky,
    ]);
    (strategy, prop::collection::vec(member(), 1..=6)).prop_flat_map(|(strategy, members)| {
        let n = members.len();
        let order = Just((0..n).collect::<Vec<_>>()).prop_shuffle();
        let binding = prop::option::of(prop::option::of(0..=n));
        let replaces = prop::option::of(0..n);
        let admission = prop::option::weighted(0.4, admission());
        let circuit = prop::sample::select(vec![
            Circuit::Closed,
            Circuit::Closed,
            Circuit::Closed,
            Circuit::HalfOpen,
            Circuit::ProbeInFlight,
        ]);
        (Just(strategy), Just(members), order, binding, replaces, admission, circuit).prop_map(
            |(strategy, members, start_order, binding, replaces, admission, circuit)| {
                let replaces = replaces.filter(|i| members[*i].held > 0);
                Pool { strategy, members, start_order, binding, replaces, admission, circuit }
            },
        )
    })
}
