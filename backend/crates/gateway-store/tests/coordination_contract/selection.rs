//! Contract: the acquire decision is core's `selection::decide` — checked over random pools
//! (property test) and by the strategies that depend on the store's own clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use anyhow::{anyhow, ensure};
use gateway_core::coordination::{
    AccountLease, AcquireOutcome, AffinityRequest, Coordination, ReplacedAttempt, SessionSignal, SignalSource,
};
use gateway_core::domain::{AccountId, ClientKeyId, ProviderKind, RotationStrategy};
use gateway_core::fault::Fault;
use gateway_core::selection::{Binding, CandidateView, Decision, QuotaStanding, SelectionView, SlotState, decide};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use super::fixtures::{account, candidate, granted, release, request};

/// Round robin rotates through every candidate by the store's last start; sticky stays on the
/// last used while it is eligible.
pub async fn round_robin_rotates_and_sticky_stays<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let (a, b, c) = (account(1), account(2), account(3));
    let pool = || vec![candidate(a, 5), candidate(b, 5), candidate(c, 5)];
    let mut picked = Vec::new();
    for _ in 0..6 {
        let mut wanted = request(pool());
        wanted.strategy = RotationStrategy::RoundRobin;
        let grant = granted(port.acquire(&wanted).await?)?;
        picked.push(grant.account.account);
        release(port.as_ref(), &grant).await?;
        // Distinct store-clock starts, so "least recent" is never a tie.
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    ensure!(picked == [a, b, c, a, b, c], "round robin in rotation: {picked:?}");

    // c started last: sticky keeps it (also when it is listed last), until it is at its cap.
    let mut sticky = request(vec![candidate(a, 5), candidate(b, 5), candidate(c, 1)]);
    sticky.strategy = RotationStrategy::Sticky;
    let held = granted(port.acquire(&sticky).await?)?;
    ensure!(held.account.account == c, "sticky stays on the last used: {held:?}");
    sticky.request = gateway_core::domain::RequestId::new();
    let next = granted(port.acquire(&sticky).await?)?;
    ensure!(next.account.account == b, "c at cap: the most recent other (b): {next:?}");
    Ok(())
}

/// One account of a generated pool and the state set up for it before the checked acquire.
#[derive(Debug, Clone)]
struct Member {
    cap: u32,
    weight: u32,
    used_basis_points: u32,
    next_reset: Option<i64>,
    held: u32,
    started: bool,
    cooling: bool,
    excluded: bool,
    paced: bool,
}

#[derive(Debug, Clone)]
struct Pool {
    strategy: RotationStrategy,
    members: Vec<Member>,
    /// The order in which the members' slots were taken (sets the last starts).
    start_order: Vec<usize>,
    /// `None` = no session; `Some(None)` = a session without binding; `Some(Some(i))` bound to
    /// member `i` (an index past the pool = an account that is not offered).
    binding: Option<Option<usize>>,
    /// A member whose held slot the acquire replaces (failover).
    replaces: Option<usize>,
}

fn member() -> impl Strategy<Value = Member> {
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

fn pool() -> impl Strategy<Value = Pool> {
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
        (Just(strategy), Just(members), order, binding, replaces).prop_map(
            |(strategy, members, start_order, binding, replaces)| {
                let replaces = replaces.filter(|i| members[*i].held > 0);
                Pool { strategy, members, start_order, binding, replaces }
            },
        )
    })
}

/// Random pools, random slot/cooldown/exclusion/interval/binding state: the adapter grants (or
/// refuses with) exactly what `decide` answers over the same view at the store's clock.
pub async fn acquire_agrees_with_core_decide<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let next_base = AtomicI64::new(1_000);
    let runtime = tokio::runtime::Handle::current();
    let mut runner = TestRunner::new(Config { cases: 96, failure_persistence: None, ..Config::default() });
    runner
        .run(&pool(), |pool| {
            let base = next_base.fetch_add(100, Ordering::Relaxed);
            tokio::task::block_in_place(|| runtime.block_on(check_pool(port.as_ref(), base, &pool)))
                .map_err(|e| TestCaseError::fail(format!("{e:#}")))
        })
        .map_err(|e| anyhow!("{e}"))
}

async fn check_pool<C: Coordination>(port: &C, base: i64, pool: &Pool) -> anyhow::Result<()> {
    let model = "gpt-5";
    let id = |i: usize| AccountId(base + i64::try_from(i).unwrap_or(0));
    let mut states = vec![SlotState::default(); pool.members.len()];
    let mut leases: Vec<Option<AccountLease>> = vec![None; pool.members.len()];
    for &i in &pool.start_order {
        let member = &pool.members[i];
        for _ in 0..member.held {
            let grant = granted(port.acquire(&request(vec![candidate(id(i), 10)])).await?)?;
            states[i].in_flight += 1;
            states[i].last_start = Some(grant.now);
            leases[i] = Some(grant.account);
        }
        if member.held == 0 && member.started {
            let grant = granted(port.acquire(&request(vec![candidate(id(i), 10)])).await?)?;
            states[i].last_start = Some(grant.now);
            release(port, &grant).await?;
        }
    }
    for (i, member) in pool.members.iter().enumerate() {
        if member.cooling {
            states[i].cool_until =
                port.set_cooldown(id(i), Duration::from_secs(3600), Fault::UsageLimitReached).await?;
        }
        if member.excluded {
            port.exclude_model(id(i), model, Duration::from_secs(3600)).await?;
            let until = port.model_exclusions(id(i)).await?.into_iter().find(|e| e.model == model).map(|e| e.until);
            states[i].excluded_until = until.ok_or_else(|| anyhow!("exclusion of {} not recorded", id(i)))?;
        }
    }
    let candidates: Vec<_> = pool
        .members
        .iter()
        .enumerate()
        .map(|(i, member)| {
            let mut offered = candidate(id(i), member.cap);
            offered.weight = member.weight;
            offered.standing =
                QuotaStanding { used_basis_points: member.used_basis_points, next_reset: member.next_reset };
            if member.paced {
                offered.request_interval = Duration::from_secs(3600);
            }
            offered
        })
        .collect();
    let mut wanted = request(candidates.clone());
    wanted.model = model.to_owned();
    wanted.strategy = pool.strategy;
    let mut binding = Binding::NotRequested;
    if let Some(bound) = pool.binding {
        let signal = SessionSignal::parse(SignalSource::SessionHeader, format!("pool-{base}").as_bytes())?;
        let key = signal.key(ClientKeyId(1), ProviderKind::Openai);
        let idle_ttl = Duration::from_secs(3600);
        binding = match bound {
            None => Binding::Unbound,
            Some(i) => Binding::Bound(port.bind_if_absent(&key, id(i), idle_ttl).await?),
        };
        wanted.affinity = Some(AffinityRequest { key, idle_ttl });
    }
    let mut replaced = None;
    if let Some(i) = pool.replaces
        && let Some(lease) = leases[i]
    {
        wanted.replaces = Some(ReplacedAttempt { lease, feedback: None, circuit: None });
        states[i].in_flight -= 1;
        replaced = Some(id(i));
    }
    let outcome = port.acquire(&wanted).await?;
    let now = match &outcome {
        AcquireOutcome::Granted(grant) => grant.now,
        AcquireOutcome::NoAccount(none) => none.now,
        other => anyhow::bail!("unexpected outcome {other:?}"),
    };
    let view = SelectionView {
        now,
        strategy: pool.strategy,
        candidates: candidates.iter().zip(&states).map(|(c, s)| CandidateView { candidate: *c, state: *s }).collect(),
        binding,
        replaced,
    };
    match (decide(&view), &outcome) {
        (Decision::Chosen { index, affinity }, AcquireOutcome::Granted(grant)) => {
            ensure!(
                grant.account.account == candidates[index].account
                    && grant.affinity == affinity
                    && grant.in_flight == states[index].in_flight + 1,
                "core chose {:?} ({affinity:?}), the store granted {grant:?}; view {view:?}",
                candidates[index].account
            );
        }
        (Decision::NoAccount(verdicts), AcquireOutcome::NoAccount(none)) => {
            ensure!(verdicts == none.verdicts, "core {verdicts:?}, store {:?}; view {view:?}", none.verdicts);
        }
        (decision, _) => anyhow::bail!("core decided {decision:?}, the store answered {outcome:?}; view {view:?}"),
    }
    Ok(())
}
