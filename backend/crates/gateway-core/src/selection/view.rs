//! What [`super::decide`] decides on and what it answers.

use crate::coordination::{AccountCandidate, AffinityOutcome, CandidateVerdict, UnixMillis};
use crate::domain::{AccountId, RotationStrategy};

/// The dynamic state of one candidate account, as the coordination store read it in the same
/// atomic step that will record the choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SlotState {
    /// Live slots (expired ones not counted; the replaced attempt's slot already freed).
    pub in_flight: u32,
    /// The store's clock at the last request start on the account, if any is remembered.
    pub last_start: Option<UnixMillis>,
    /// End of a 429 cooldown (`UnixMillis(0)` = none).
    pub cool_until: UnixMillis,
    /// End of the account's exclusion for the requested model (`UnixMillis(0)` = none).
    pub excluded_until: UnixMillis,
}

/// One offered candidate: the engine's facts and the store's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CandidateView {
    pub candidate: AccountCandidate,
    pub state: SlotState,
}

/// The session binding as the store read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// The request carries no session signal.
    NotRequested,
    /// A session signal without a live binding.
    Unbound,
    Bound(AccountId),
}

/// Everything one decision reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectionView {
    /// The store's clock.
    pub now: UnixMillis,
    pub strategy: RotationStrategy,
    /// In the engine's order (the last tie-break), 1..=16.
    pub candidates: Vec<CandidateView>,
    pub binding: Binding,
    /// The failed attempt's account this acquire replaces (failover), if any.
    pub replaced: Option<AccountId>,
}

/// The decision: a candidate (by position) and what happens to the session binding, or why no
/// candidate is eligible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Chosen {
        index: usize,
        affinity: AffinityOutcome,
    },
    /// Every candidate failed a hard filter; one verdict per candidate, in the request's order.
    NoAccount(Vec<CandidateVerdict>),
}
