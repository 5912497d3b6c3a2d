//! The account-selection policy: which eligible candidate one acquire takes.
//!
//! [`decide`] is a pure function over a [`SelectionView`] — the candidates the engine offers,
//! with their static scheduling facts from the snapshot and the dynamic state the coordination
//! store read atomically (in-flight slots, last start, cooldown, model exclusion, the session
//! binding). Every strategy of SPEC §4 lives here:
//!
//! - hard filters first, first failing check wins: cooldown → model excluded → at cap → inside
//!   `requestIntervalMs` ([`verdict`]);
//! - a healthy session binding wins over the strategy;
//! - the strategy is an ordered list of comparison keys ([`strategy_order`]) over the eligible
//!   candidates; ties fall to the next key and finally to the engine's list order.
//!
//! Core's acquire plan ([`crate::coordination::acquire_plan::run`]) calls [`decide`] for the
//! in-process adapter and the engine suite's fake. The Redis adapter sends the same ingredients
//! to `acquire.lua` — each candidate's static [`ranks`] and the strategy's keys as words — and
//! the script applies the same fixed comparison primitives inside its atomic step; the contract
//! suite's property test checks both adapters against the acquire plan and so against [`decide`]
//! (`docs/decisions/0231-selection-policy-in-core.md`, `0343-one-acquire-plan.md`).

mod decide;
mod order;
mod standing;
mod view;

pub use decide::{decide, verdict};
pub use order::{OrderKey, compare, ranks, strategy_order, strategy_words};
pub use standing::QuotaStanding;
pub use view::{Binding, CandidateView, Decision, SelectionView, SlotState};
