//! An in-process coordination fake for the engine suite (gateway-core may not depend on the
//! store's adapters): slots under cap, cooldowns, model exclusions, request intervals, key
//! concurrency, session bindings, an open circuit on demand and continuation pins. Its clock
//! is tokio's, so paused time drives it. It records every acquire, release and heartbeat.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::{
    AccountFeedback, AccountLease, AcquireOutcome, AcquireRequest, AdmissionDenial, AdmissionLease, AffinityOutcome,
    CandidateVerdict, CircuitOutcome, CircuitPolicy, CircuitSnapshot, CircuitState, ContinuationPin, ContinuationPins,
    CoordinationError, FenceToken, Grant, HeartbeatOutcome, HeldLeases, Ineligible, LeaseStatus, NoAccount, PinLookup,
    PinWrite, ProviderCircuits, ReleaseOutcome, ReleaseRequest, ReplicaHeartbeats, RequestSlots, UnixMillis,
};
use gateway_core::domain::{AccountId, BootId, ClientKeyId, ProviderKind, ReplicaName};
use tokio::time::Instant;

const EPOCH_MILLIS: u64 = 1_800_000_000_000;

#[derive(Default)]
struct State {
    in_flight: HashMap<AccountId, u32>,
    key_in_flight: HashMap<ClientKeyId, u32>,
    live: HashMap<(AccountId, u64), ()>,
    cooldown_until: HashMap<AccountId, u64>,
    excluded_until: HashMap<(AccountId, String), u64>,
    last_start: HashMap<AccountId, u64>,
    bindings: HashMap<[u8; 32], AccountId>,
    open_until: HashMap<ProviderKind, u64>,
    pins: HashMap<Vec<u8>, ContinuationPin>,
    next_token: u64,
    acquires: Vec<AcquireRequest>,
    releases: Vec<ReleaseRequest>,
    heartbeats: Vec<Vec<HeldLeases>>,
    fail_acquires: bool,
}

pub struct FakeCoordination {
    origin: Instant,
    state: Mutex<State>,
}

impl FakeCoordination {
    pub fn new() -> Self {
        Self { origin: Instant::now(), state: Mutex::new(State::default()) }
    }

    pub fn now(&self) -> UnixMillis {
        UnixMillis(EPOCH_MILLIS + self.origin.elapsed().as_millis() as u64)
    }

    pub fn acquires(&self) -> Vec<AcquireRequest> {
        self.state.lock().expect("lock").acquires.clone()
    }

    pub fn releases(&self) -> Vec<ReleaseRequest> {
        self.state.lock().expect("lock").releases.clone()
    }

    pub fn heartbeats(&self) -> Vec<Vec<HeldLeases>> {
        self.state.lock().expect("lock").heartbeats.clone()
    }

    pub fn in_flight(&self, account: AccountId) -> u32 {
        self.state.lock().expect("lock").in_flight.get(&account).copied().unwrap_or(0)
    }

    pub fn cooldown_left(&self, account: AccountId) -> Option<Duration> {
        let now = self.now().0;
        let until = *self.state.lock().expect("lock").cooldown_until.get(&account)?;
        (until > now).then(|| Duration::from_millis(until - now))
    }

    pub fn exclusion_left(&self, account: AccountId, model: &str) -> Option<Duration> {
        let now = self.now().0;
        let until = *self.state.lock().expect("lock").excluded_until.get(&(account, model.to_owned()))?;
        (until > now).then(|| Duration::from_millis(until - now))
    }

    /// Opens `provider`'s circuit for `open_for`.
    pub fn open_circuit(&self, provider: ProviderKind, open_for: Duration) {
        let until = self.now().0 + open_for.as_millis() as u64;
        self.state.lock().expect("lock").open_until.insert(provider, until);
    }

    /// Makes every acquire fail as if the store were unreachable.
    pub fn break_store(&self) {
        self.state.lock().expect("lock").fail_acquires = true;
    }

    pub fn pin(&self, response_id: &str, pin: ContinuationPin) {
        self.state.lock().expect("lock").pins.insert(response_id.as_bytes().to_vec(), pin);
    }

    fn apply_feedback(state: &mut State, account: AccountId, feedback: &Option<AccountFeedback>, now: u64) {
        match feedback {
            Some(AccountFeedback::Cooldown { duration, .. }) => {
                let until = now + duration.as_millis() as u64;
                let entry = state.cooldown_until.entry(account).or_insert(0);
                *entry = (*entry).max(until);
            }
            Some(AccountFeedback::ExcludeModel { model, ttl }) => {
                state.excluded_until.insert((account, model.clone()), now + ttl.as_millis() as u64);
            }
            None => {}
        }
    }

    fn free(state: &mut State, lease: AccountLease) -> LeaseStatus {
        if state.live.remove(&(lease.account, lease.token.0)).is_none() {
            return LeaseStatus::Lost;
        }
        if let Some(count) = state.in_flight.get_mut(&lease.account) {
            *count = count.saturating_sub(1);
        }
        LeaseStatus::Held
    }

    fn verdict(
        state: &State,
        request: &AcquireRequest,
        account: AccountId,
        cap: u32,
        interval: Duration,
        now: u64,
    ) -> Option<Ineligible> {
        if let Some(until) = state.cooldown_until.get(&account).filter(|until| **until > now) {
            return Some(Ineligible::CoolingDown { until: UnixMillis(*until) });
        }
        if let Some(until) = state.excluded_until.get(&(account, request.model.clone())).filter(|until| **until > now) {
            return Some(Ineligible::ModelExcluded { until: UnixMillis(*until) });
        }
        let in_flight = state.in_flight.get(&account).copied().unwrap_or(0);
        if in_flight >= cap {
            return Some(Ineligible::AtCap { in_flight, cap });
        }
        let interval = interval.as_millis() as u64;
        if let Some(last) = state.last_start.get(&account)
            && now < last + interval
        {
            return Some(Ineligible::IntervalWait { wait: Duration::from_millis(last + interval - now) });
        }
        None
    }
}

#[async_trait]
impl RequestSlots for FakeCoordination {
    async fn acquire(&self, request: &AcquireRequest) -> Result<AcquireOutcome, CoordinationError> {
        request.validate()?;
        let now = self.now().0;
        let mut state = self.state.lock().expect("lock");
        if state.fail_acquires {
            return Err(CoordinationError::Unavailable("the fake store is down".to_owned()));
        }
        state.acquires.push(request.clone());
        let mut rebind_from = None;
        if let Some(replaced) = &request.replaces {
            Self::free(&mut state, replaced.lease);
            Self::apply_feedback(&mut state, replaced.lease.account, &replaced.feedback, now);
            rebind_from = Some(replaced.lease.account);
        }
        if let Some(until) = state.open_until.get(&request.provider).filter(|until| **until > now) {
            return Ok(AcquireOutcome::CircuitOpen { until: UnixMillis(*until) });
        }
        if let Some(limits) = &request.admission
            && let Some(limit) = limits.max_concurrency
        {
            let in_flight = state.key_in_flight.get(&limits.client_key).copied().unwrap_or(0);
            if in_flight >= limit {
                return Ok(AcquireOutcome::AdmissionDenied(AdmissionDenial::Concurrency { limit, in_flight }));
            }
        }
        let verdicts: Vec<(usize, Option<Ineligible>)> = request
            .candidates
            .iter()
            .enumerate()
            .map(|(i, c)| (i, Self::verdict(&state, request, c.account, c.max_in_flight, c.request_interval, now)))
            .collect();
        let bound = request.affinity.and_then(|a| state.bindings.get(&a.key.0).copied());
        let eligible = |account: AccountId| {
            request.candidates.iter().zip(&verdicts).any(|(c, (_, v))| c.account == account && v.is_none())
        };
        let chosen = match bound.filter(|b| eligible(*b)) {
            Some(bound) => request.candidates.iter().position(|c| c.account == bound),
            None => {
                let mut open = verdicts.iter().filter(|(_, v)| v.is_none()).map(|(i, _)| *i);
                // The engine's tests do not test the choice (gateway-core/tests/selection.rs does):
                // `smart` takes the least loaded, every other strategy the first eligible.
                match request.strategy {
                    gateway_core::domain::RotationStrategy::Smart => {
                        open.min_by_key(|i| state.in_flight.get(&request.candidates[*i].account).copied().unwrap_or(0))
                    }
                    _ => open.next(),
                }
            }
        };
        let Some(index) = chosen else {
            let verdicts = request
                .candidates
                .iter()
                .zip(verdicts)
                .map(|(c, (_, v))| CandidateVerdict { account: c.account, reason: v.expect("ineligible") })
                .collect();
            return Ok(AcquireOutcome::NoAccount(NoAccount { verdicts, now: UnixMillis(now) }));
        };
        let account = request.candidates[index].account;
        let affinity = match (request.affinity, bound) {
            (None, _) => AffinityOutcome::NotRequested,
            (Some(_), Some(b)) if b == account => AffinityOutcome::Hit,
            (Some(a), Some(b)) if rebind_from == Some(b) || !request.candidates.iter().any(|c| c.account == b) => {
                state.bindings.insert(a.key.0, account);
                AffinityOutcome::Rebound { from: b }
            }
            (Some(_), Some(b)) => AffinityOutcome::Bypassed { bound: b },
            (Some(a), None) => {
                state.bindings.insert(a.key.0, account);
                AffinityOutcome::Bound
            }
        };
        state.next_token += 1;
        let token = state.next_token;
        state.live.insert((account, token), ());
        *state.in_flight.entry(account).or_insert(0) += 1;
        state.last_start.insert(account, now);
        let in_flight = state.in_flight[&account];
        let admission = request.admission.as_ref().and_then(|limits| {
            limits.max_concurrency.map(|_| {
                *state.key_in_flight.entry(limits.client_key).or_insert(0) += 1;
                AdmissionLease { client_key: limits.client_key, request: request.request }
            })
        });
        Ok(AcquireOutcome::Granted(Grant {
            account: AccountLease { account, token: FenceToken(token) },
            admission,
            in_flight,
            affinity,
            now: UnixMillis(now),
            probe: false,
        }))
    }

    async fn release(&self, release: &ReleaseRequest) -> Result<ReleaseOutcome, CoordinationError> {
        let now = self.now().0;
        let mut state = self.state.lock().expect("lock");
        state.releases.push(release.clone());
        let account = match release.leases.account {
            Some(lease) => {
                let status = Self::free(&mut state, lease);
                Self::apply_feedback(&mut state, lease.account, &release.feedback, now);
                status
            }
            None => LeaseStatus::Absent,
        };
        let admission = match release.leases.admission {
            Some(lease) => {
                if let Some(count) = state.key_in_flight.get_mut(&lease.client_key) {
                    *count = count.saturating_sub(1);
                }
                LeaseStatus::Held
            }
            None => LeaseStatus::Absent,
        };
        Ok(ReleaseOutcome { admission, account })
    }

    async fn check_account_lease(&self, lease: &AccountLease) -> Result<LeaseStatus, CoordinationError> {
        let state = self.state.lock().expect("lock");
        Ok(if state.live.contains_key(&(lease.account, lease.token.0)) { LeaseStatus::Held } else { LeaseStatus::Lost })
    }
}

#[async_trait]
impl ProviderCircuits for FakeCoordination {
    async fn record(
        &self,
        provider: ProviderKind,
        _outcome: CircuitOutcome,
        _policy: &CircuitPolicy,
    ) -> Result<CircuitSnapshot, CoordinationError> {
        self.circuit(provider).await
    }

    async fn circuit(&self, _provider: ProviderKind) -> Result<CircuitSnapshot, CoordinationError> {
        Ok(CircuitSnapshot {
            state: CircuitState::Closed,
            consecutive_failures: 0,
            total_failures: 0,
            total_successes: 0,
            times_opened: 0,
        })
    }
}

#[async_trait]
impl ContinuationPins for FakeCoordination {
    async fn pin(
        &self,
        response_id: &[u8],
        pin: &ContinuationPin,
        _ttl: Duration,
    ) -> Result<PinWrite, CoordinationError> {
        self.state.lock().expect("lock").pins.insert(response_id.to_vec(), pin.clone());
        Ok(PinWrite::Written)
    }

    async fn lookup(&self, response_id: &[u8], client_key: ClientKeyId) -> Result<PinLookup, CoordinationError> {
        Ok(match self.state.lock().expect("lock").pins.get(response_id) {
            Some(pin) if pin.client_key == client_key => PinLookup::Found(pin.clone()),
            Some(_) => PinLookup::NotYours,
            None => PinLookup::NotFound,
        })
    }

    async fn unpin(&self, response_id: &[u8], _client_key: ClientKeyId) -> Result<bool, CoordinationError> {
        Ok(self.state.lock().expect("lock").pins.remove(response_id).is_some())
    }
}

#[async_trait]
impl ReplicaHeartbeats for FakeCoordination {
    async fn heartbeat(
        &self,
        _boot: BootId,
        leases: &[HeldLeases],
        _ttl: Duration,
    ) -> Result<HeartbeatOutcome, CoordinationError> {
        let mut state = self.state.lock().expect("lock");
        state.heartbeats.push(leases.to_vec());
        let renewed = leases
            .iter()
            .filter_map(|held| held.account)
            .filter(|lease| state.live.contains_key(&(lease.account, lease.token.0)))
            .count() as u32;
        Ok(HeartbeatOutcome { renewed, lost: leases.len() as u32 - renewed })
    }

    async fn claim_replica(&self, _replica: &ReplicaName, _boot: BootId) -> Result<Option<BootId>, CoordinationError> {
        Ok(None)
    }

    async fn release_boot(&self, _boot: BootId) -> Result<u64, CoordinationError> {
        Ok(0)
    }

    async fn boots_alive(&self, boots: &[BootId]) -> Result<Vec<bool>, CoordinationError> {
        Ok(vec![true; boots.len()])
    }
}
