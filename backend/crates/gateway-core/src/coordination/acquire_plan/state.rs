//! What the acquire plan reads from and writes to the store: the [`AcquireState`] trait an
//! adapter implements over its own storage, and the values that cross it.

use crate::coordination::account_slots::{AccountFeedback, AccountLease, FenceToken};
use crate::coordination::admission::{AdmissionLease, SpendPeriod};
use crate::coordination::affinity::AffinityKey;
use crate::coordination::circuit::CircuitReport;
use crate::coordination::time::UnixMillis;
use crate::domain::{AccountId, BootId, ClientKeyId, ProviderKind, RequestId};
use crate::selection::SlotState;

/// The store's side of one acquire, called by [`super::run`] inside the adapter's atomic step
/// (one mutex, one Lua script). Each method is storage only: how a count is kept, how an entry
/// expires. Which step reads what, in which order, and what the answer is, is the plan's.
pub trait AcquireState {
    /// Frees the replaced attempt's slot (a slot already gone is no error).
    fn free_account_slot(&mut self, lease: &AccountLease);

    /// Applies an attempt's feedback to its account (the same write the release makes).
    fn apply_feedback(&mut self, account: AccountId, now: UnixMillis, feedback: &AccountFeedback);

    /// Feeds an attempt's outcome to its provider's circuit (the same write the release makes).
    fn apply_circuit_report(&mut self, now: UnixMillis, report: &CircuitReport);

    /// The provider circuit as stored.
    fn circuit(&mut self, provider: ProviderKind, now: UnixMillis) -> CircuitRead;

    /// The client key's live admission slots and its admitted starts of the last 60 s.
    fn admission(&mut self, client_key: ClientKeyId, now: UnixMillis) -> AdmissionRead;

    /// What the key's finished requests spent in the UTC day and month of `period`.
    fn spent(&mut self, client_key: ClientKeyId, period: SpendPeriod) -> PeriodSpend;

    /// One candidate account's live slots, last start, cooldown and exclusion for `model`.
    fn slot_state(&mut self, account: AccountId, model: &str, now: UnixMillis) -> SlotState;

    /// The live session binding of `key`, if any.
    fn binding(&mut self, key: &AffinityKey, now: UnixMillis) -> Option<AccountId>;

    /// Records a grant, all of it: returns the new slot's fencing token.
    fn record_grant(&mut self, grant: &GrantWrites) -> FenceToken;
}

/// A provider circuit as the store keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CircuitRead {
    /// Opened and not closed since (open while `open_until` is ahead, half-open after).
    pub opened: bool,
    pub open_until: UnixMillis,
    /// While half-open: the claim of the one probe in flight ends here.
    pub probe_until: UnixMillis,
}

/// A client key's admission counters, after expired entries are dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AdmissionRead {
    /// Live concurrency slots.
    pub in_flight: u32,
    /// Admitted starts of the last 60 s.
    pub recent_starts: u32,
    /// The oldest of those starts.
    pub oldest_start: Option<UnixMillis>,
}

/// Tokens and nano-USD a key's finished requests spent in one day and one month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PeriodSpend {
    pub day_tokens: u64,
    pub day_cost: u64,
    pub month_tokens: u64,
    pub month_cost: u64,
}

/// Every write of one grant, decided by the plan; the store only performs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantWrites {
    pub owner: BootId,
    pub request: RequestId,
    /// The chosen account: a slot with a fresh fencing token until `expires_at` (also in the
    /// owner boot's slot index), and `last_start = now`.
    pub account: AccountId,
    pub now: UnixMillis,
    pub expires_at: UnixMillis,
    /// A concurrency slot of the key until `expires_at` (also in the owner boot's index).
    pub admission_slot: Option<AdmissionLease>,
    /// A start at `now` in the key's requests-per-minute log.
    pub counted_start: Option<ClientKeyId>,
    pub binding: BindingWrite,
    /// The half-open circuit's probe is claimed until then.
    pub probe: Option<ProbeClaim>,
}

/// What the grant does to the session binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingWrite {
    /// No affinity was requested.
    None,
    /// The binding stays on its account; its idle expiry moves to `expires_at`.
    Renew { key: AffinityKey, expires_at: UnixMillis },
    /// The key is bound (or rebound) to `account` until `expires_at`.
    Bind { key: AffinityKey, account: AccountId, expires_at: UnixMillis },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeClaim {
    pub provider: ProviderKind,
    pub until: UnixMillis,
}
