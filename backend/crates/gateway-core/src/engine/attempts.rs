//! The attempt coordinator: admission and account choice in one coordination round trip, the
//! upstream call, and failover before the downstream commit.
//!
//! Invariant 5 holds by construction: each `execute` gets one account. Invariant 6: within a
//! provider the next account is tried under the frozen policy; the next provider only while the
//! request is still `not_sent`.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use gateway_protocol::request::RequestBody;
use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;

use super::admission::{admission_error, admission_limits};
use super::candidates::CandidatePool;
use super::failover::{self, Next};
use super::record::RequestRecord;
use super::route_plan::RoutePlan;
use super::{Engine, InboundRequest};
use crate::coordination::acquire::MAX_CANDIDATES;
use crate::coordination::{
    AccountCandidate, AccountFeedback, AcquireOutcome, AcquireRequest, AffinityRequest, CoordinationError,
    CoordinationErrorKind, LeaseGuard, NoAccount, ReplacedAttempt, SessionSignal,
};
use crate::domain::{AccountId, ProviderKind, RotationStrategy, SendState};
use crate::observation::Observation;
use crate::provider::{Provider, UpstreamCall, UpstreamReply, UpstreamRoute};
use crate::selection::QuotaStanding;
use crate::snapshot::{AccountEntry, KeyEntry, RuntimeSnapshot};

/// Everything an attempt needs, borrowed from the request.
pub struct CallContext<'a> {
    pub engine: &'a Engine,
    pub snapshot: &'a Arc<RuntimeSnapshot>,
    pub key: &'a Arc<KeyEntry>,
    pub plan: &'a RoutePlan,
    pub inbound: &'a InboundRequest,
    pub view: &'a RequestBody,
    pub stream: bool,
    pub session: Option<&'a SessionSignal>,
    pub route: &'a UpstreamRoute,
    /// A continuation runs only on the account that owns the previous response.
    pub only_account: Option<AccountId>,
}

/// An upstream that accepted the call, with the slots the request holds.
pub struct Accepted {
    pub reply: UpstreamReply,
    pub guard: LeaseGuard,
    pub provider: ProviderKind,
    pub account: AccountId,
}

/// State carried across the attempts of one request.
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
}

/// Candidates offered per acquire: choosing the least loaded of a few weighted random picks
/// balances nearly as well as looking at all, and keeps the coordination script's work small
/// however large the pool ("power of d choices").
const CANDIDATES_PER_ACQUIRE: usize = 4;
/// Further acquires when every offered candidate was ineligible.
const MAX_SKIP_ROUNDS: u32 = 3;

pub async fn run(ctx: &CallContext<'_>, record: &mut RequestRecord) -> Result<Accepted, ApiError> {
    let mut state = Attempts {
        guard: None,
        feedback: None,
        tried: Vec::new(),
        recovered: HashSet::new(),
        interval_waited: Duration::ZERO,
        last_error: None,
        skipped: Vec::new(),
        skip_rounds: 0,
        probe: false,
    };
    let result = run_steps(ctx, record, &mut state).await;
    if result.is_err()
        && let Some(guard) = state.guard.take()
    {
        guard.release_later(state.feedback.take(), None);
    }
    result
}

async fn run_steps(
    ctx: &CallContext<'_>,
    record: &mut RequestRecord,
    state: &mut Attempts,
) -> Result<Accepted, ApiError> {
    for (step, (kind, pool)) in ctx.plan.steps.iter().enumerate() {
        // The next provider only while nothing may have reached an upstream.
        if step > 0 && record.watermark() != SendState::NotSent {
            break;
        }
        let Some(provider) = ctx.engine.providers.get(*kind) else { continue };
        if let Some(accepted) = run_provider(ctx, record, state, *kind, provider.as_ref(), pool).await? {
            return Ok(accepted);
        }
    }
    Err(state.last_error.take().unwrap_or_else(|| {
        ApiError::new(ErrorCode::NoAvailableAccount, "No account is available to serve this request right now.")
            .with_retry_after(30)
    }))
}

/// Tries the accounts of one provider. `Ok(None)` moves on to the next provider.
async fn run_provider(
    ctx: &CallContext<'_>,
    record: &mut RequestRecord,
    state: &mut Attempts,
    kind: ProviderKind,
    provider: &dyn Provider,
    pool: &CandidatePool,
) -> Result<Option<Accepted>, ApiError> {
    let settings = &ctx.engine.settings;
    let strategy = ctx.snapshot.settings.rotation_strategy;
    let affinity = ctx.session.map(|signal| AffinityRequest {
        key: signal.key(ctx.key.record.id, kind),
        idle_ttl: settings.affinity_idle_ttl,
    });
    loop {
        if record.attempt_count() >= settings.max_attempts {
            return Err(state.last_error.take().unwrap_or_else(no_account_error));
        }
        let now = OffsetDateTime::now_utc();
        let candidates = match ctx.only_account {
            Some(owner) if !state.tried.contains(&owner) => owner_candidate(ctx.snapshot, owner),
            Some(_) => Vec::new(),
            None => {
                let excluded: Vec<AccountId> = state.tried.iter().chain(&state.skipped).copied().collect();
                let hint = affinity.and_then(|a| ctx.engine.affinity_hints.get(&a.key));
                candidates(ctx.snapshot, pool, strategy, &excluded, now.unix_timestamp(), affinity.is_some(), hint)
            }
        };
        if candidates.is_empty() {
            if ctx.only_account.is_some() {
                return Err(super::failover::previous_response_not_found());
            }
            return Ok(None);
        }
        let request = AcquireRequest {
            request: record.id,
            owner: ctx.engine.held.boot(),
            provider: kind,
            model: ctx.plan.upstream_model.clone(),
            admission: if state.guard.is_none() { admission_limits(ctx.key, record.spend_period) } else { None },
            candidates,
            strategy,
            affinity,
            lease_ttl: settings.lease_ttl,
            probe_ttl: settings.probe_ttl(),
            // The replaced attempt's feedback and circuit report are applied by this acquire,
            // whatever it decides.
            replaces: state.guard.as_mut().and_then(|guard| {
                let lease = guard.account()?;
                Some(ReplacedAttempt { lease, feedback: state.feedback.take(), circuit: guard.take_circuit() })
            }),
        };
        let grant = match ctx.engine.slots.acquire(&request).await.map_err(coordination_error)? {
            AcquireOutcome::Granted(grant) => grant,
            AcquireOutcome::AdmissionDenied(denial) => return Err(admission_error(denial, record.spend_period)),
            AcquireOutcome::CircuitOpen { until } => {
                state.last_error = Some(super::circuit::open_error(until));
                return Ok(None);
            }
            AcquireOutcome::NoAccount(none) => {
                // Nothing was recorded: keep the replaced slot and its feedback for the release.
                state.feedback = request.replaces.and_then(|r| r.feedback);
                if ctx.only_account.is_some() && none.shortest_interval_wait().is_none() {
                    // The owner cannot serve now (cooling down, at cap): the client resends.
                    return Err(super::failover::previous_response_not_found());
                }
                if let Some(wait) = none.shortest_interval_wait()
                    && state.interval_waited + wait <= settings.max_interval_wait
                {
                    // Inside an account's request interval: wait our turn instead of failing.
                    state.interval_waited += wait;
                    tokio::time::sleep(wait).await;
                    continue;
                }
                state.last_error = Some(no_account_for(&none));
                // The candidates offered were all ineligible; when the pool holds more, offer
                // the next ones (bounded), else move on.
                if state.skip_rounds < MAX_SKIP_ROUNDS && pool.len() > state.tried.len() + state.skipped.len() {
                    state.skip_rounds += 1;
                    state.skipped.extend(none.verdicts.iter().map(|v| v.account));
                    continue;
                }
                return Ok(None);
            }
        };
        if let Some(affinity) = affinity {
            let bound = match grant.affinity {
                crate::coordination::AffinityOutcome::Bypassed { bound } => bound,
                _ => grant.account.account,
            };
            ctx.engine.affinity_hints.remember(affinity.key, bound);
        }
        match state.guard.as_mut() {
            Some(guard) => guard.replace_account(grant.account),
            None => state.guard = Some(ctx.engine.held.guard(grant.held())),
        }
        state.probe = grant.probe;
        let account_id = grant.account.account;
        let Some(account) = ctx.snapshot.account(account_id) else {
            // Nothing is sent; a probe taken for it is handed back by the next acquire.
            if let Some(guard) = state.guard.as_mut() {
                guard.report_circuit(super::circuit::report(ctx.engine, kind, None, state.probe));
            }
            state.tried.push(account_id);
            continue;
        };
        // Same-account loop: only a credential recovery retries the same account.
        loop {
            let number = record.begin_attempt(kind, account_id);
            let call = UpstreamCall {
                request: record.id,
                attempt: number,
                operation: ctx.inbound.operation,
                client_key: ctx.key.record.id,
                account,
                body: &ctx.inbound.body,
                view: ctx.view,
                upstream_model: &ctx.plan.upstream_model,
                client_stream: ctx.stream,
                client_headers: &ctx.inbound.headers,
                header_timeout: settings.header_timeout,
                route: ctx.route,
            };
            let failure = match provider.execute(call).await {
                Ok(reply) => {
                    record.end_attempt("ok", Some(200), SendState::Sent);
                    record.latency.headers_ms = Some(u32::try_from(reply.headers_time.as_millis()).unwrap_or(u32::MAX));
                    if let Some(quota) = reply.quota.clone() {
                        ctx.engine
                            .observations
                            .push(Observation::Quota { account: account_id, facts: Box::new(quota) });
                    }
                    let mut guard = state.guard.take().ok_or_else(internal_error)?;
                    super::circuit::succeeded(ctx.engine, kind, state.probe, &mut guard).await;
                    return Ok(Some(Accepted { reply, guard, provider: kind, account: account_id }));
                }
                Err(failure) => failure,
            };
            record.end_attempt(failure.code(), failure.http_status, failure.send_state);
            tracing::info!(request = %record.id, account = %account_id, attempt = number, code = failure.code(), message = %failure.message, "attempt failed");
            if let Some(quota) = failure.quota.clone() {
                ctx.engine.observations.push(Observation::Quota { account: account_id, facts: quota });
            }
            if let Some(guard) = state.guard.as_mut() {
                guard.report_circuit(super::circuit::failed(ctx.engine, kind, &failure, state.probe));
            }
            let recovered = state.recovered.contains(&account_id);
            match failover::decide(&failure, recovered, &ctx.plan.upstream_model, OffsetDateTime::now_utc()) {
                Next::Fail(error) => return Err(error),
                Next::RecoverAndRetry => {
                    state.recovered.insert(account_id);
                    if record.attempt_count() >= settings.max_attempts {
                        return Err(failure_error(&failure));
                    }
                    match provider.recover_credential(account_id).await {
                        Ok(()) => continue,
                        Err(_) => {
                            state.feedback =
                                Some(AccountFeedback::Cooldown { duration: failover::UNAUTHORIZED_COOLDOWN });
                            state.tried.push(account_id);
                            state.last_error = Some(failure_error(&failure));
                            break;
                        }
                    }
                }
                Next::NextAccount(feedback) => {
                    state.feedback = feedback;
                    state.tried.push(account_id);
                    state.last_error = Some(if ctx.only_account.is_some() {
                        // The state lives on the owner only: no other account can continue it.
                        super::failover::previous_response_not_found()
                    } else {
                        failure_error(&failure)
                    });
                    break;
                }
            }
        }
    }
}

/// The accounts offered to the acquire step, in preference order: a few weighted picks
/// ([`CANDIDATES_PER_ACQUIRE`]); with a session, the account this replica last saw bound to it
/// first — and, when this replica knows no binding yet, a wider sample so the binding the
/// coordination store holds is likely among them.
fn candidates(
    snapshot: &RuntimeSnapshot,
    pool: &CandidatePool,
    strategy: RotationStrategy,
    excluded: &[AccountId],
    now_unix: i64,
    affinity: bool,
    hint: Option<AccountId>,
) -> Vec<AccountCandidate> {
    let interval = Duration::from_millis(u64::from(snapshot.settings.request_interval_ms));
    let first = hint.and_then(|h| pool.usable_member(h, excluded, now_unix));
    let k = match (affinity, first) {
        (true, None) => MAX_CANDIDATES,
        _ => CANDIDATES_PER_ACQUIRE,
    };
    let mut indices: Vec<usize> = first.into_iter().collect();
    let more: Vec<AccountId> = excluded.iter().copied().chain(hint).collect();
    indices.extend(pool.pick(strategy, k - indices.len(), &more, now_unix));
    indices
        .into_iter()
        .map(|index| {
            let account = &snapshot.accounts()[index];
            offered(account, interval)
        })
        .collect()
}

/// An account as offered to the acquire step: its cap, interval, weight and quota standing.
fn offered(account: &AccountEntry, interval: Duration) -> AccountCandidate {
    AccountCandidate {
        account: account.id(),
        max_in_flight: account.max_in_flight,
        request_interval: interval,
        weight: u32::from(account.record.scheduling.weight.get()),
        standing: QuotaStanding::of(&account.record.quota),
    }
}

/// The owner of a continuation as the only candidate.
fn owner_candidate(snapshot: &RuntimeSnapshot, owner: AccountId) -> Vec<AccountCandidate> {
    let interval = Duration::from_millis(u64::from(snapshot.settings.request_interval_ms));
    snapshot.account(owner).map(|account| offered(account, interval)).into_iter().collect()
}

pub(crate) fn coordination_error(error: CoordinationError) -> ApiError {
    tracing::warn!(%error, "coordination failed; refusing the request");
    match error.kind() {
        CoordinationErrorKind::Unavailable => ApiError::new(
            ErrorCode::CoordinationUnavailable,
            "The gateway's coordination store is unavailable; try again shortly.",
        )
        .with_retry_after(5),
        CoordinationErrorKind::Internal => internal_error(),
    }
}

fn no_account_error() -> ApiError {
    ApiError::new(ErrorCode::NoAvailableAccount, "No account is available to serve this request right now.")
        .with_retry_after(30)
}

fn no_account_for(none: &NoAccount) -> ApiError {
    let retry = none
        .all_cooling_down_until()
        .map(|until| (until.0.saturating_sub(none.now.0)).div_ceil(1000).max(1))
        .unwrap_or(5);
    ApiError::new(ErrorCode::NoAvailableAccount, "Every account that could serve this request is busy or cooling down.")
        .with_retry_after(retry)
}

/// The error the client sees when failover runs out after `failure`.
fn failure_error(failure: &crate::provider::AttemptFailure) -> ApiError {
    match &failure.class {
        crate::provider::FailureClass::Rejected(error) => (**error).clone(),
        _ => no_account_error(),
    }
}

fn internal_error() -> ApiError {
    ApiError::new(ErrorCode::InternalError, "internal error")
}
