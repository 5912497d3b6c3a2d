//! Contract: an acquire is core's acquire plan (`acquire_plan::run`, around
//! `selection::decide`) — checked over random pools (property test) and by the strategies that
//! depend on the store's own clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{anyhow, ensure};
use gateway_core::coordination::acquire_plan::{self, CircuitRead, PeriodSpend};
use gateway_core::coordination::{
    AccountCandidate, AccountLease, AcquireOutcome, AdmissionDenial, AdmissionLimits, AffinityRequest, CircuitOutcome,
    CircuitPolicy, CircuitState, Coordination, Grant, ReleaseRequest, ReplacedAttempt, SessionSignal, SignalSource,
    Spend, UnixMillis,
};
use gateway_core::domain::{AccountId, ClientKeyId, NanoUsd, ProviderKind, RequestId, RotationStrategy};
use gateway_core::fault::Fault;
use gateway_core::selection::QuotaStanding;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use super::acquire_pool::{Circuit, Pool, pool};
use super::acquire_reference::ReferenceState;
use super::fixtures::{EXPIRY_DEADLINE, account, candidate, granted, limits, release, request};

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

/// Random pools, random slot/cooldown/exclusion/interval/binding/admission state: the adapter
/// grants (or refuses with) exactly what core's acquire plan answers over the same state at the
/// store's clock.
pub async fn acquire_agrees_with_the_acquire_plan<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
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

/// The state one pool set up through the ports, as the plan's reference sees it.
struct SetUp {
    reference: ReferenceState,
    /// A held slot of each member that holds any.
    leases: Vec<Option<AccountLease>>,
    /// The latest store clock a grant reported.
    last_now: UnixMillis,
    /// Taken before the first call to the store: the store's clock has moved on from
    /// `last_now` by at most the time since.
    started: Instant,
}

const MODEL: &str = "gpt-5";

fn member_id(base: i64, i: usize) -> AccountId {
    AccountId(base + i64::try_from(i).unwrap_or(0))
}

async fn check_pool<C: Coordination>(port: &C, base: i64, pool: &Pool) -> anyhow::Result<()> {
    let admission = pool.admission.as_ref().map(|admission| AdmissionLimits {
        budgets: admission.budgets,
        ..limits(ClientKeyId(base), admission.max_concurrency, admission.requests_per_minute)
    });
    let mut set_up = set_up(port, base, pool, admission).await?;
    let mut wanted = request(offered(base, pool));
    wanted.model = MODEL.to_owned();
    wanted.strategy = pool.strategy;
    wanted.admission = admission;
    if let Some(bound) = pool.binding {
        let signal = SessionSignal::parse(SignalSource::SessionHeader, format!("pool-{base}").as_bytes())?;
        let key = signal.key(ClientKeyId(1), ProviderKind::Openai);
        let idle_ttl = Duration::from_secs(3600);
        set_up.reference.binding = match bound {
            None => None,
            Some(i) => Some(port.bind_if_absent(&key, member_id(base, i), idle_ttl).await?),
        };
        wanted.affinity = Some(AffinityRequest { key, idle_ttl });
    }
    if let Some(i) = pool.replaces
        && let Some(lease) = set_up.leases[i]
    {
        wanted.replaces = Some(ReplacedAttempt { lease, feedback: None, circuit: None });
    }
    set_up_circuit(port, base, pool.circuit, &mut set_up).await?;
    let outcome = port.acquire(&wanted).await;
    if pool.circuit != Circuit::Closed {
        // Closes the half-open circuit again for the next pool.
        port.record(ProviderKind::Openai, CircuitOutcome::Success, &BRIEF_OPENING).await?;
    }
    let outcome = outcome?;
    let clock_moved = set_up.started.elapsed() + Duration::from_millis(1);
    // A refusal does not say the store's clock: the plan runs at the last one seen, which only
    // matters to a rate refusal's wait (the store's can only be shorter).
    let now = match &outcome {
        AcquireOutcome::Granted(grant) => grant.now,
        AcquireOutcome::NoAccount(none) => none.now,
        AcquireOutcome::AdmissionDenied(_) | AcquireOutcome::CircuitOpen { .. } => set_up.last_now,
    };
    let mut reference = set_up.reference;
    let expected = acquire_plan::run(&mut reference, now, &wanted);
    ensure!(
        agree(&expected, &outcome, clock_moved),
        "core's plan answered {expected:?}, the store {outcome:?}; state {reference:?}, request {wanted:?}"
    );
    Ok(())
}

/// Held admission slots, held and released account slots, cooldowns and exclusions, taken
/// through the port and noted in the reference.
async fn set_up<C: Coordination>(
    port: &C,
    base: i64,
    pool: &Pool,
    limits_checked: Option<AdmissionLimits>,
) -> anyhow::Result<SetUp> {
    let id = |i: usize| member_id(base, i);
    let mut set_up = SetUp {
        reference: ReferenceState::default(),
        leases: vec![None; pool.members.len()],
        last_now: UnixMillis(0),
        started: Instant::now(),
    };
    if let (Some(admission), Some(checked)) = (&pool.admission, limits_checked) {
        let spend = Spend {
            client_key: checked.client_key,
            period: checked.period,
            tokens: admission.spent_tokens,
            cost: NanoUsd(admission.spent_cost),
        };
        port.release(&ReleaseRequest { spend: Some(spend), ..ReleaseRequest::default() }).await?;
        let cost = u64::try_from(admission.spent_cost).unwrap_or(0);
        set_up.reference.spend =
            PeriodSpend { day_tokens: spend.tokens, month_tokens: spend.tokens, day_cost: cost, month_cost: cost };
        // Held admission slots of the key, on an account of their own.
        let mut holder = request(vec![candidate(AccountId(base + 50), 10)]);
        holder.admission = Some(limits(ClientKeyId(base), Some(100), Some(100)));
        for _ in 0..admission.held {
            holder.request = RequestId::new();
            let grant = granted(port.acquire(&holder).await?)?;
            let read = &mut set_up.reference.admission;
            read.in_flight += 1;
            read.recent_starts += 1;
            read.oldest_start = read.oldest_start.or(Some(grant.now));
            set_up.last_now = grant.now;
        }
    }
    for &i in &pool.start_order {
        let member = &pool.members[i];
        let state = set_up.reference.slots.entry(id(i)).or_default();
        for _ in 0..member.held {
            let grant = granted(port.acquire(&request(vec![candidate(id(i), 10)])).await?)?;
            state.in_flight += 1;
            state.last_start = Some(grant.now);
            set_up.leases[i] = Some(grant.account);
            set_up.last_now = grant.now;
        }
        if member.held == 0 && member.started {
            let grant = granted(port.acquire(&request(vec![candidate(id(i), 10)])).await?)?;
            state.last_start = Some(grant.now);
            set_up.last_now = grant.now;
            release(port, &grant).await?;
        }
    }
    for (i, member) in pool.members.iter().enumerate() {
        let state = set_up.reference.slots.entry(id(i)).or_default();
        if member.cooling {
            state.cool_until = port.set_cooldown(id(i), Duration::from_secs(3600), Fault::UsageLimitReached).await?;
        }
        if member.excluded {
            port.exclude_model(id(i), MODEL, Duration::from_secs(3600)).await?;
            let until = port.model_exclusions(id(i)).await?.into_iter().find(|e| e.model == MODEL).map(|e| e.until);
            state.excluded_until = until.ok_or_else(|| anyhow!("exclusion of {} not recorded", id(i)))?;
        }
    }
    Ok(set_up)
}

/// Opens the provider circuit for 1 ms, so that it reads half-open at once.
const BRIEF_OPENING: CircuitPolicy = CircuitPolicy { failure_threshold: 1, open_for: Duration::from_millis(1) };

/// Puts the provider circuit in the pool's state (last, since it gates every acquire).
async fn set_up_circuit<C: Coordination>(
    port: &C,
    base: i64,
    circuit: Circuit,
    set_up: &mut SetUp,
) -> anyhow::Result<()> {
    if circuit == Circuit::Closed {
        return Ok(());
    }
    port.record(ProviderKind::Openai, CircuitOutcome::Failure, &BRIEF_OPENING).await?;
    let deadline = Instant::now() + EXPIRY_DEADLINE;
    while port.circuit(ProviderKind::Openai).await?.state != CircuitState::HalfOpen {
        ensure!(Instant::now() < deadline, "the circuit did not become half-open");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    set_up.reference.circuit = CircuitRead { opened: true, ..CircuitRead::default() };
    if circuit == Circuit::ProbeInFlight {
        let mut prober = request(vec![candidate(AccountId(base + 60), 10)]);
        // Long enough that it cannot lapse before the checked acquire.
        prober.probe_ttl = Duration::from_secs(60);
        let grant = granted(port.acquire(&prober).await?)?;
        ensure!(grant.probe, "the first acquire of a half-open circuit takes the probe: {grant:?}");
        set_up.reference.circuit.probe_until = grant.now.after(prober.probe_ttl);
        set_up.last_now = grant.now;
    }
    Ok(())
}

/// The candidates of the checked acquire, with each member's facts.
fn offered(base: i64, pool: &Pool) -> Vec<AccountCandidate> {
    pool.members
        .iter()
        .enumerate()
        .map(|(i, member)| {
            let mut offered = candidate(member_id(base, i), member.cap);
            offered.weight = member.weight;
            offered.standing =
                QuotaStanding { used_basis_points: member.used_basis_points, next_reset: member.next_reset };
            if member.paced {
                offered.request_interval = Duration::from_secs(3600);
            }
            offered
        })
        .collect()
}

/// The same outcome, but for the grant's fencing token (the store's own) and what a refusal
/// derives from the store's clock, which is later than the plan's by at most `clock_moved`: a
/// rate refusal's wait is that much shorter at most, a refusal by the probe in flight ends that
/// much later at most.
fn agree(plan: &AcquireOutcome, store: &AcquireOutcome, clock_moved: Duration) -> bool {
    match (plan, store) {
        (AcquireOutcome::CircuitOpen { until: plan_until }, AcquireOutcome::CircuitOpen { until }) => {
            plan_until <= until && *until <= plan_until.after(clock_moved)
        }
        (AcquireOutcome::Granted(plan), AcquireOutcome::Granted(store)) => {
            let token = store.account.token;
            Grant { account: AccountLease { token, ..plan.account }, ..*plan } == *store
        }
        (
            AcquireOutcome::AdmissionDenied(AdmissionDenial::RequestsPerMinute { limit, retry_after }),
            AcquireOutcome::AdmissionDenied(AdmissionDenial::RequestsPerMinute {
                limit: store_limit,
                retry_after: wait,
            }),
        ) => limit == store_limit && wait <= retry_after && *wait + clock_moved >= *retry_after,
        (plan, store) => plan == store,
    }
}
