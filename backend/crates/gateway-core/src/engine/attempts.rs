//! The attempt phases, before the downstream commit: acquire (admission and account choice in
//! one coordination round trip) → send (one account, one `execute`) → decide on failure
//! (`failover::decide`) → the next account, or the next provider.
//!
//! Invariant 5 holds by construction: each `execute` gets one account. Invariant 6: within a
//! provider the next account is tried under the frozen policy; the next provider only while the
//! request is still `not_sent`.

mod alerts;
mod egress;
mod offer;
mod pool_refusal;
mod refusal;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;
use tracing::Instrument;

use super::admission::{admission_error, admission_limits};
use super::candidates::CandidatePool;
use super::failover::{self, Next};
use super::record::RequestRecord;
use super::{Engine, RequestContext};
use crate::coordination::{
    AccountCandidate, AccountFeedback, AcquireOutcome, AcquireRequest, AffinityRequest, Grant, LeaseGuard, NoAccount,
    ReplacedAttempt, UnixMillis,
};
use crate::domain::{AccountId, AttemptOutcome, ProviderKind, SendState};
use crate::fault::{CooldownRule, Fault};
use crate::observation::Observation;
use crate::provider::{AttemptFailure, Provider, UpstreamReply};
use crate::snapshot::AccountEntry;
use offer::{candidates, owner_candidate};
use pool_refusal::BackTimes;
pub(crate) use refusal::coordination_error;
use refusal::internal_error;

/// An upstream that accepted the call, with the slots the request holds.
pub struct Accepted {
    pub reply: UpstreamReply,
    pub guard: LeaseGuard,
    pub provider: ProviderKind,
    pub account: AccountId,
}

/// State carried across the attempts of one request.
#[derive(Default)]
struct Attempts {
    guard: Option<LeaseGuard>,
    /// Feedback for the account whose slot `guard` holds, given at the next acquire or release.
    feedback: Option<AccountFeedback>,
    tried: Vec<AccountId>,
    recovered: HashSet<AccountId>,
    interval_waited: Duration,
    last_error: Option<ApiError>,
    /// Accounts found ineligible by an acquire (cooling down, at cap): not offered again.
    skipped: Vec<AccountId>,
    skip_rounds: u32,
    /// The slot in `guard` holds the half-open circuit's probe.
    probe: bool,
    /// When the accounts this request could not use are expected back (the pool refusal's
    /// `Retry-After`).
    back: BackTimes,
    /// Egress paths a fault of this request blamed: accounts behind other paths go first.
    avoid_paths: Vec<String>,
}

/// One provider of the plan, as the attempts on it see it.
struct Step<'a> {
    kind: ProviderKind,
    provider: &'a dyn Provider,
    pool: &'a CandidatePool,
    affinity: Option<AffinityRequest>,
}

/// What the acquire phase came back with.
enum Acquired {
    Granted(Grant),
    /// Waited for an interval, or offered the next candidates: acquire again.
    Again,
    /// Nothing in this provider can serve now: the next provider (while `not_sent`).
    NextProvider,
}

impl Acquired {
    /// The acquire span's `outcome`.
    fn outcome(&self) -> &'static str {
        match self {
            Acquired::Granted(_) => "granted",
            Acquired::Again => "again",
            Acquired::NextProvider => "next_provider",
        }
    }
}

/// What sending on one account came to.
enum Sent {
    Accepted(Box<Accepted>),
    NextAccount,
}

/// Further acquires when every offered candidate was ineligible.
const MAX_SKIP_ROUNDS: u32 = 3;

pub async fn run(engine: &Engine, ctx: &RequestContext, record: &mut RequestRecord) -> Result<Accepted, ApiError> {
    let mut state = Attempts::default();
    let result = run_steps(engine, ctx, record, &mut state).await;
    if let Err(error) = &result
        && error.code == ErrorCode::NoAvailableAccount
        && record.attempt_count() == 0
    {
        alerts::pool_empty(engine, ctx);
    }
    if result.is_err()
        && let Some(guard) = state.guard.take()
    {
        guard.release_later(state.feedback.take(), None);
    }
    result
}

async fn run_steps(
    engine: &Engine,
    ctx: &RequestContext,
    record: &mut RequestRecord,
    state: &mut Attempts,
) -> Result<Accepted, ApiError> {
    for (index, (kind, pool)) in ctx.plan.steps.iter().enumerate() {
        // The next provider only while nothing may have reached an upstream.
        if index > 0 && record.watermark() != SendState::NotSent {
            break;
        }
        let Some(provider) = engine.providers.get(*kind) else { continue };
        let affinity = ctx.session.as_ref().map(|signal| AffinityRequest {
            key: signal.key(ctx.key.record.id, *kind),
            idle_ttl: engine.settings.affinity_idle_ttl,
        });
        let step = Step { kind: *kind, provider: provider.as_ref(), pool, affinity };
        if let Some(accepted) = run_provider(engine, ctx, record, state, &step).await? {
            return Ok(accepted);
        }
    }
    Err(state.last_error.take().unwrap_or_else(|| pool_refusal::refusal(ctx, state, now_millis())))
}

/// The coordination clock's unit, from this process's clock.
fn now_millis() -> UnixMillis {
    UnixMillis(u64::try_from(OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000).unwrap_or(0))
}

/// Tries the accounts of one provider: acquire → send, until one accepts. `Ok(None)` moves on
/// to the next provider.
async fn run_provider(
    engine: &Engine,
    ctx: &RequestContext,
    record: &mut RequestRecord,
    state: &mut Attempts,
    step: &Step<'_>,
) -> Result<Option<Accepted>, ApiError> {
    loop {
        if record.attempt_count() >= engine.settings.max_attempts {
            return Err(state.last_error.take().unwrap_or_else(|| pool_refusal::refusal(ctx, state, now_millis())));
        }
        let span = crate::phase!("acquire", provider = step.kind.as_str(), attempt = record.attempt_count() + 1);
        let acquired = acquire(engine, ctx, record, state, step).instrument(span.clone()).await;
        span.record("outcome", acquired.as_ref().map_or(super::phase::REFUSED, Acquired::outcome));
        let grant = match acquired? {
            Acquired::Granted(grant) => grant,
            Acquired::Again => continue,
            Acquired::NextProvider => return Ok(None),
        };
        let account_id = grant.account.account;
        hold(engine, state, step, grant);
        let Some(account) = ctx.snapshot.account(account_id) else {
            // Nothing is sent; a probe taken for it is handed back by the next acquire.
            if let Some(guard) = state.guard.as_mut() {
                guard.report_circuit(super::circuit::report(engine, step.kind, None, state.probe));
            }
            state.tried.push(account_id);
            continue;
        };
        if let Sent::Accepted(accepted) = send(engine, ctx, record, state, step, account).await? {
            return Ok(Some(*accepted));
        }
    }
}

/// Acquire: admission, the provider circuit, the account slot, the interval and the session
/// affinity in one coordination round trip.
async fn acquire(
    engine: &Engine,
    ctx: &RequestContext,
    record: &RequestRecord,
    state: &mut Attempts,
    step: &Step<'_>,
) -> Result<Acquired, ApiError> {
    let settings = &engine.settings;
    let strategy = ctx.snapshot.settings.rotation_strategy;
    let candidates = offered(engine, ctx, state, step);
    if candidates.is_empty() {
        if ctx.only_account.is_some() {
            return Err(super::failover::previous_response_not_found());
        }
        return Ok(Acquired::NextProvider);
    }
    let request = AcquireRequest {
        request: record.id,
        owner: engine.held.boot(),
        provider: step.kind,
        model: ctx.plan.upstream_model.clone(),
        admission: if state.guard.is_none() { admission_limits(&ctx.key, record.spend_period) } else { None },
        candidates,
        strategy,
        affinity: step.affinity,
        lease_ttl: settings.lease_ttl,
        probe_ttl: settings.probe_ttl(),
        // The replaced attempt's feedback and circuit report are applied by this acquire,
        // whatever it decides.
        replaces: state.guard.as_mut().and_then(|guard| {
            let lease = guard.account()?;
            Some(ReplacedAttempt { lease, feedback: state.feedback.take(), circuit: guard.take_circuit() })
        }),
    };
    let outcome = engine.slots.acquire(&request).await.map_err(|error| {
        engine.telemetry.coordination_error(error.kind().code());
        coordination_error(error)
    })?;
    match outcome {
        AcquireOutcome::Granted(grant) => Ok(Acquired::Granted(grant)),
        AcquireOutcome::AdmissionDenied(denial) => {
            engine.telemetry.admission_rejected(denial.reason());
            Err(admission_error(denial, record.spend_period))
        }
        AcquireOutcome::CircuitOpen { until } => {
            state.last_error = Some(super::circuit::open_error(until));
            Ok(Acquired::NextProvider)
        }
        AcquireOutcome::NoAccount(none) => {
            // Nothing was recorded: keep the replaced slot and its feedback for the release.
            state.feedback = request.replaces.and_then(|r| r.feedback);
            no_account(ctx, state, step, &none, settings.max_interval_wait).await
        }
    }
}

/// The candidates this acquire offers: the continuation's owner alone (once), else a few
/// weighted picks of the pool that this request has not tried or skipped.
fn offered(engine: &Engine, ctx: &RequestContext, state: &Attempts, step: &Step<'_>) -> Vec<AccountCandidate> {
    match ctx.only_account {
        Some(owner) if !state.tried.contains(&owner) => owner_candidate(&ctx.snapshot, owner),
        Some(_) => Vec::new(),
        None => {
            let excluded: Vec<AccountId> = state.tried.iter().chain(&state.skipped).copied().collect();
            let hint = step.affinity.and_then(|a| engine.affinity_hints.get(&a.key));
            let now = OffsetDateTime::now_utc().unix_timestamp();
            let strategy = ctx.snapshot.settings.rotation_strategy;
            let offered = candidates(&ctx.snapshot, step.pool, strategy, &excluded, now, step.affinity.is_some(), hint);
            egress::prefer_other_paths(engine, ctx, state, offered)
        }
    }
}

/// No offered candidate was eligible: wait for an interval within the budget, offer the next
/// candidates (bounded), or give up on this provider.
async fn no_account(
    ctx: &RequestContext,
    state: &mut Attempts,
    step: &Step<'_>,
    none: &NoAccount,
    max_wait: Duration,
) -> Result<Acquired, ApiError> {
    if ctx.only_account.is_some() && none.shortest_interval_wait().is_none() {
        // The owner cannot serve now (cooling down, at cap): the client resends.
        return Err(super::failover::previous_response_not_found());
    }
    if let Some(wait) = none.shortest_interval_wait()
        && state.interval_waited + wait <= max_wait
    {
        // Inside an account's request interval: wait our turn instead of failing.
        state.interval_waited += wait;
        tokio::time::sleep(wait).await;
        return Ok(Acquired::Again);
    }
    if let Some(at) = none.earliest_back() {
        state.back.note(at);
    }
    if state.skip_rounds < MAX_SKIP_ROUNDS && step.pool.len() > state.tried.len() + state.skipped.len() {
        state.skip_rounds += 1;
        state.skipped.extend(none.verdicts.iter().map(|v| v.account));
        return Ok(Acquired::Again);
    }
    Ok(Acquired::NextProvider)
}

/// Takes the granted slot into the request's guard and remembers the session's binding.
fn hold(engine: &Engine, state: &mut Attempts, step: &Step<'_>, grant: Grant) {
    if let Some(affinity) = step.affinity {
        let bound = match grant.affinity {
            crate::coordination::AffinityOutcome::Bypassed { bound } => bound,
            _ => grant.account.account,
        };
        engine.affinity_hints.remember(affinity.key, bound);
    }
    match state.guard.as_mut() {
        Some(guard) => guard.replace_account(grant.account),
        None => state.guard = Some(engine.held.guard(grant.held())),
    }
    state.probe = grant.probe;
}

/// Send on one account; only a credential recovery retries the same account.
async fn send(
    engine: &Engine,
    ctx: &RequestContext,
    record: &mut RequestRecord,
    state: &mut Attempts,
    step: &Step<'_>,
    account: &AccountEntry,
) -> Result<Sent, ApiError> {
    let account_id = account.id();
    loop {
        let number = record.begin_attempt(step.kind, account_id);
        let span = crate::phase!("send", provider = step.kind.as_str(), attempt = number, account = %account_id);
        // With a trace exporter, the upstream call's `traceparent` names this span.
        let traceparent = crate::trace_context::traceparent_of(&span);
        let mut call = ctx.upstream_call(record.id, number, account, engine.settings.header_timeout);
        call.traceparent = traceparent.as_deref();
        let executed = step.provider.execute(call).instrument(span.clone()).await;
        span.record("outcome", executed.as_ref().map_or_else(AttemptFailure::code, |_| "ok"));
        drop(span);
        let failure = match executed {
            Ok(reply) => {
                return accepted(engine, record, state, step.kind, account_id, reply)
                    .await
                    .map(|a| Sent::Accepted(Box::new(a)));
            }
            Err(failure) => failure,
        };
        record.end_attempt(AttemptOutcome::Failed(failure.fault), failure.http_status, failure.send_state);
        tracing::info!(request = %record.id, account = %account_id, attempt = number, code = failure.code(), message = %failure.message, "attempt failed");
        alerts::account_failed(engine, step.kind, account_id, &failure);
        if let Some(quota) = failure.quota.clone() {
            engine.observations.push(Observation::Quota { account: account_id, facts: quota });
        }
        if let Some(guard) = state.guard.as_mut() {
            guard.report_circuit(super::circuit::failed(engine, step.kind, &failure, state.probe));
        }
        let span = crate::phase!("decide", next = tracing::field::Empty);
        let decided = on_failure(engine, ctx, record, state, step, account, &failure).instrument(span.clone()).await;
        span.record(
            "next",
            match &decided {
                Ok(true) => "same_account",
                Ok(false) => "next_account",
                Err(_) => "fail",
            },
        );
        if !decided? {
            return Ok(Sent::NextAccount);
        }
    }
}

/// The upstream accepted: the attempt's record, its quota facts and circuit report.
async fn accepted(
    engine: &Engine,
    record: &mut RequestRecord,
    state: &mut Attempts,
    kind: ProviderKind,
    account: AccountId,
    reply: UpstreamReply,
) -> Result<Accepted, ApiError> {
    record.end_attempt(AttemptOutcome::Ok, Some(200), SendState::Sent);
    record.latency.headers_ms = Some(u32::try_from(reply.headers_time.as_millis()).unwrap_or(u32::MAX));
    if let Some(quota) = reply.quota.clone() {
        engine.observations.push(Observation::Quota { account, facts: Box::new(quota) });
    }
    let mut guard = state.guard.take().ok_or_else(internal_error)?;
    engine.fault_memory.succeeded(account);
    super::circuit::succeeded(engine, kind, state.probe, &mut guard).await;
    Ok(Accepted { reply, guard, provider: kind, account })
}

/// Decide on failure ([`failover::decide`]): `Ok(true)` retries the same account (its
/// credential was renewed), `Ok(false)` moves to the next account, `Err` ends the request.
async fn on_failure(
    engine: &Engine,
    ctx: &RequestContext,
    record: &RequestRecord,
    state: &mut Attempts,
    step: &Step<'_>,
    account: &AccountEntry,
    failure: &AttemptFailure,
) -> Result<bool, ApiError> {
    let account_id = account.id();
    let now = OffsetDateTime::now_utc();
    let repeats = match failure.row().cooldown {
        CooldownRule::Growing { .. } => engine.fault_memory.repeat(account_id, failure.fault, Instant::now()),
        _ => 1,
    };
    let at = failover::Circumstances {
        recovered: state.recovered.contains(&account_id),
        model: &ctx.plan.upstream_model,
        now,
        repeats,
    };
    let feedback = match failover::decide(failure, &at) {
        Next::Fail(error) => return Err(error),
        Next::RecoverAndRetry => {
            state.recovered.insert(account_id);
            if record.attempt_count() >= engine.settings.max_attempts {
                return Err(pool_refusal::refusal(ctx, state, now_millis()));
            }
            match step.provider.recover_credential(account_id).await {
                Ok(()) => return Ok(true),
                Err(refused) => recovery_feedback(&refused, failure, &at),
            }
        }
        Next::NextAccount { feedback, avoid_egress } => {
            if avoid_egress {
                egress::avoid(engine, state, account, feedback.as_ref());
            }
            feedback
        }
    };
    egress::raise_ops_event(engine, step.kind, record, account_id, failure);
    engine.telemetry.failover(step.kind, failure.code());
    state.back.note(back_at(feedback.as_ref()));
    state.feedback = feedback;
    state.tried.push(account_id);
    if ctx.only_account.is_some() {
        // The state lives on the owner only: no other account can continue it.
        state.last_error = Some(super::failover::previous_response_not_found());
    }
    Ok(false)
}

/// The feedback after a 401 whose credential could not be renewed: while the token endpoint
/// (or its edge) fails for now, the account is back when the refresh is retried (at least
/// [`MIN_REFRESH_WAIT`], at most the refused credential's ten minutes); otherwise the
/// credential is refused for ten minutes.
fn recovery_feedback(
    refused: &AttemptFailure,
    failure: &AttemptFailure,
    at: &failover::Circumstances<'_>,
) -> Option<AccountFeedback> {
    let refused_for = failover::cooldown_feedback(Fault::CredentialRefused, failure, at);
    if !matches!(refused.fault, Fault::TokenEndpointChallenge | Fault::TokenEndpointUnavailable) {
        return refused_for;
    }
    let longest = match refused_for {
        Some(AccountFeedback::Cooldown { duration, .. }) => duration,
        _ => Duration::from_secs(600),
    };
    let wait = refused.until.and_then(|until| Duration::try_from(until - at.now).ok()).unwrap_or(MIN_REFRESH_WAIT);
    Some(AccountFeedback::Cooldown { duration: wait.clamp(MIN_REFRESH_WAIT, longest), fault: refused.fault })
}

/// Shortest cooldown after a refresh that failed for now.
const MIN_REFRESH_WAIT: Duration = Duration::from_secs(5);

/// When the account that got `feedback` is expected back: at the cooldown's end, else now (an
/// exclusion is for one model; another model may use the account).
fn back_at(feedback: Option<&AccountFeedback>) -> UnixMillis {
    let now = now_millis();
    match feedback {
        Some(AccountFeedback::Cooldown { duration, .. }) => now.after(*duration),
        _ => now,
    }
}
