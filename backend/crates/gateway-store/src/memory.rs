//! The in-process adapter of the coordination ports, for the embedded single-replica mode.
//!
//! Same contracts as the Redis adapter (both pass `tests/coordination_contract`): one mutex
//! over plain maps stands in for Redis' single-threaded script execution, deadlines are
//! timestamps compared on access, expired entries are swept every [`SWEEP_EVERY`] writes, and
//! pub/sub is a broadcast channel. Continuation transcripts live in their own bounded map on
//! tokio's clock (`memory/transcripts.rs`). Nothing survives a restart, exactly like a lost Redis.

mod acquire;
mod admin_sessions;
mod affinity;
mod circuit;
mod continuation;
mod cooldown;
mod heartbeat;
mod in_flight;
mod leader_lease;
mod login_throttle;
mod notifications;
mod oauth_pending;
mod transcripts;

pub use transcripts::TRANSCRIPT_ENTRIES;

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use gateway_core::coordination::{AffinityKey, ContinuationPin, OAuthFlowKey, ReplicaId};
use gateway_core::domain::{AccountId, BootId, ClientKeyId, ProviderKind, RequestId};
use gateway_core::fault::Fault;
use tokio::sync::broadcast;

/// Writes between two sweeps of expired entries.
const SWEEP_EVERY: u64 = 1024;
/// Buffered change notifications per subscriber before it lags (and gets `Resync`).
const CHANGE_BUFFER: usize = 64;

pub struct MemoryCoordination {
    state: Mutex<State>,
    changes: broadcast::Sender<i64>,
    /// Continuation transcripts: bounded by their own map (entries, tokio clock).
    transcripts: transcripts::Transcripts,
}

impl Default for MemoryCoordination {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryCoordination {
    pub fn new() -> Self {
        Self {
            state: Mutex::new(State::default()),
            changes: broadcast::channel(CHANGE_BUFFER).0,
            transcripts: transcripts::transcripts(),
        }
    }

    /// The state, with the clock read under the lock (every operation is one critical section,
    /// like one Lua script).
    fn lock(&self) -> (MutexGuard<'_, State>, u64) {
        // Every operation leaves the maps consistent before it can panic, so a poisoned lock
        // still guards usable state.
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let now = now_ms();
        state.writes += 1;
        if state.writes.is_multiple_of(SWEEP_EVERY) {
            state.sweep(now);
        }
        (state, now)
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
}

#[derive(Default)]
struct State {
    admission: HashMap<ClientKeyId, ClientAdmission>,
    /// What each key's finished requests spent per UTC day and month.
    spend: HashMap<SpendWindow, Spent>,
    accounts: HashMap<AccountId, AccountState>,
    affinity: HashMap<AffinityKey, Expiring<AccountId>>,
    circuits: HashMap<ProviderKind, CircuitRecord>,
    pins: HashMap<Vec<u8>, Expiring<ContinuationPin>>,
    flows: HashMap<OAuthFlowKey, Expiring<FlowRecord>>,
    leases: HashMap<String, Expiring<(ReplicaId, u64)>>,
    fences: HashMap<String, u64>,
    periods: HashMap<(String, u64), u64>,
    /// Admin sessions by token digest (idle and absolute deadlines live in the session).
    admin_sessions: HashMap<[u8; 32], gateway_admin::ports::AdminSession>,
    /// Failed logins per subject: (count, window end).
    login_failures: HashMap<String, (u32, u64)>,
    /// Once-markers (a TOTP step used): expiry per marker.
    once_markers: HashMap<String, u64>,
    /// Each boot's heartbeat and the slots it was granted.
    boots: HashMap<BootId, BootRecord>,
    /// The current boot of each replica name.
    replicas: HashMap<String, BootId>,
    writes: u64,
}

/// One slot a boot was granted, as its successor frees it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum SlotRef {
    Admission(ClientKeyId, RequestId),
    Account(AccountId, u64),
}

#[derive(Default)]
struct BootRecord {
    /// The heartbeat's end (ms); 0 before the first heartbeat.
    alive_until: u64,
    /// Slot -> expiry.
    slots: HashMap<SlotRef, u64>,
}

impl State {
    fn sweep(&mut self, now: u64) {
        self.affinity.retain(|_, entry| entry.live(now));
        self.pins.retain(|_, entry| entry.live(now));
        self.flows.retain(|_, entry| entry.live(now));
        self.leases.retain(|_, entry| entry.live(now));
        self.periods.retain(|_, expires_at| *expires_at > now);
        self.login_failures.retain(|_, (_, ends)| *ends > now);
        self.once_markers.retain(|_, ends| *ends > now);
        self.admission.retain(|_, admission| {
            admission.trim(now);
            !admission.slots.is_empty() || !admission.recent.is_empty()
        });
        let current = spend_period_at(now);
        self.spend.retain(|window, _| match window.period {
            SpendWindowPeriod::Day(day) => day + 1 >= current.day,
            SpendWindowPeriod::Month(month) => month + 1 >= current.month,
        });
        for account in self.accounts.values_mut() {
            account.slots.retain(|_, expiry| *expiry > now);
            account.exclusions.retain(|_, until| *until > now);
        }
        self.boots.retain(|_, boot| {
            boot.slots.retain(|_, expiry| *expiry > now);
            boot.alive_until > now || !boot.slots.is_empty()
        });
    }

    fn account(&mut self, account: AccountId) -> &mut AccountState {
        self.accounts.entry(account).or_default()
    }
}

/// One client key's spend counters for one UTC day or month.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct SpendWindow {
    client_key: ClientKeyId,
    period: SpendWindowPeriod,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum SpendWindowPeriod {
    Day(i32),
    Month(i32),
}

#[derive(Default, Clone, Copy)]
struct Spent {
    tokens: u64,
    /// nano-USD
    cost: u64,
}

/// The budget period of a store-clock instant (milliseconds since the epoch).
fn spend_period_at(now: u64) -> gateway_core::coordination::SpendPeriod {
    let seconds = i64::try_from(now / 1000).unwrap_or(i64::MAX);
    let instant = time::OffsetDateTime::from_unix_timestamp(seconds).unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    gateway_core::coordination::SpendPeriod::at(instant)
}

struct Expiring<T> {
    value: T,
    expires_at: u64,
}

impl<T> Expiring<T> {
    fn live(&self, now: u64) -> bool {
        self.expires_at > now
    }
}

#[derive(Default)]
struct ClientAdmission {
    /// Request -> slot expiry.
    slots: HashMap<RequestId, u64>,
    /// Start times of the admitted requests of the last minute, oldest first.
    recent: VecDeque<u64>,
}

impl ClientAdmission {
    fn trim(&mut self, now: u64) {
        self.slots.retain(|_, expiry| *expiry > now);
        while self.recent.front().is_some_and(|start| *start + 60_000 <= now) {
            self.recent.pop_front();
        }
    }
}

/// Kept forever (like the Redis account hash): the fence must never go backwards.
#[derive(Default)]
struct AccountState {
    fence: u64,
    last_start: Option<u64>,
    cool_until: u64,
    /// The fault that set `cool_until`.
    cool_fault: Option<Fault>,
    /// Fencing token -> slot expiry.
    slots: HashMap<u64, u64>,
    /// Model -> exclusion end.
    exclusions: HashMap<String, u64>,
}

/// Stored phase of a circuit; an `Open` circuit whose period ended reads half-open.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Phase {
    #[default]
    Closed,
    Open,
}

#[derive(Default)]
struct CircuitRecord {
    phase: Phase,
    open_until: u64,
    /// While half-open: the one probe's claim ends here.
    probe_until: u64,
    consecutive: u32,
    failures: u64,
    successes: u64,
    opened: u64,
}

struct FlowRecord {
    owner: String,
    payload: Vec<u8>,
    claim: Option<(String, u64)>,
}
