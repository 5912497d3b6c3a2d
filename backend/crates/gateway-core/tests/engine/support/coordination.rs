//! An in-process coordination fake for the engine suite (gateway-core may not depend on the
//! store's adapters): storage for core's acquire plan (slots under cap, cooldowns, model
//! exclusions, request intervals, key admission, session bindings, an open circuit on demand)
//! and continuation pins; the acquire itself is `acquire_plan::run`, as in the adapters. Its clock
//! is tokio's, so paused time drives it. It records every acquire, release and heartbeat.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::acquire_plan::{
    self, AcquireState, AdmissionRead, BindingWrite, CircuitRead, GrantWrites, PeriodSpend,
};
use gateway_core::coordination::{
    AccountFeedback, AccountLease, AcquireOutcome, AcquireRequest, AffinityKey, CircuitOutcome, CircuitPolicy,
    CircuitReport, CircuitSnapshot, CircuitState, ContinuationPin, ContinuationPins, CoordinationError, FenceToken,
    HeartbeatOutcome, HeldLeases, LeaseStatus, PinLookup, PinWrite, ProviderCircuits, ReleaseOutcome, ReleaseRequest,
    ReplicaHeartbeats, RequestSlots, SpendPeriod, UnixMillis,
};
use gateway_core::domain::{AccountId, BootId, ClientKeyId, ProviderKind, ReplicaName};
use gateway_core::selection::SlotState;
use tokio::time::Instant;

const EPOCH_MILLIS: u64 = 1_800_000_000_000;

#[derive(Default)]
struct State {
    in_flight: HashMap<AccountId, u32>,
    key_in_flight: HashMap<ClientKeyId, u32>,
    /// Admitted starts per key, for requests per minute.
    key_starts: HashMap<ClientKeyId, Vec<u64>>,
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
        Ok(acquire_plan::run(&mut *state, UnixMillis(now), request))
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

/// The fake's storage under core's acquire plan: counters without TTLs, bindings that never
/// expire, a circuit that is open until its deadline and closed after it (no half-open probe),
/// no spend (budgets never refuse).
impl AcquireState for State {
    fn free_account_slot(&mut self, lease: &AccountLease) {
        FakeCoordination::free(self, *lease);
    }

    fn apply_feedback(&mut self, account: AccountId, now: UnixMillis, feedback: &AccountFeedback) {
        FakeCoordination::apply_feedback(self, account, &Some(feedback.clone()), now.0);
    }

    fn apply_circuit_report(&mut self, _now: UnixMillis, _report: &CircuitReport) {}

    fn circuit(&mut self, provider: ProviderKind, now: UnixMillis) -> CircuitRead {
        match self.open_until.get(&provider) {
            Some(until) if *until > now.0 => {
                CircuitRead { opened: true, open_until: UnixMillis(*until), probe_until: UnixMillis(0) }
            }
            _ => CircuitRead::default(),
        }
    }

    fn admission(&mut self, client_key: ClientKeyId, now: UnixMillis) -> AdmissionRead {
        let starts = self.key_starts.entry(client_key).or_default();
        starts.retain(|start| start + 60_000 > now.0);
        AdmissionRead {
            in_flight: self.key_in_flight.get(&client_key).copied().unwrap_or(0),
            recent_starts: starts.len() as u32,
            oldest_start: starts.first().copied().map(UnixMillis),
        }
    }

    fn spent(&mut self, _client_key: ClientKeyId, _period: SpendPeriod) -> PeriodSpend {
        PeriodSpend::default()
    }

    fn slot_state(&mut self, account: AccountId, model: &str, _now: UnixMillis) -> SlotState {
        SlotState {
            in_flight: self.in_flight.get(&account).copied().unwrap_or(0),
            last_start: self.last_start.get(&account).copied().map(UnixMillis),
            cool_until: UnixMillis(self.cooldown_until.get(&account).copied().unwrap_or(0)),
            excluded_until: UnixMillis(self.excluded_until.get(&(account, model.to_owned())).copied().unwrap_or(0)),
        }
    }

    fn binding(&mut self, key: &AffinityKey, _now: UnixMillis) -> Option<AccountId> {
        self.bindings.get(&key.0).copied()
    }

    fn record_grant(&mut self, grant: &GrantWrites) -> FenceToken {
        self.next_token += 1;
        let token = self.next_token;
        self.live.insert((grant.account, token), ());
        *self.in_flight.entry(grant.account).or_insert(0) += 1;
        self.last_start.insert(grant.account, grant.now.0);
        if let Some(lease) = grant.admission_slot {
            *self.key_in_flight.entry(lease.client_key).or_insert(0) += 1;
        }
        if let Some(client_key) = grant.counted_start {
            self.key_starts.entry(client_key).or_default().push(grant.now.0);
        }
        if let BindingWrite::Bind { key, account, .. } = grant.binding {
            self.bindings.insert(key.0, account);
        }
        FenceToken(token)
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
