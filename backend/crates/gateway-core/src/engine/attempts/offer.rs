//! The candidates one acquire is offered: a few weighted picks of the pool, or a
//! continuation's owner alone.

use std::time::Duration;

use crate::coordination::AccountCandidate;
use crate::coordination::acquire::MAX_CANDIDATES;
use crate::domain::{AccountId, RotationStrategy};
use crate::engine::candidates::CandidatePool;
use crate::selection::QuotaStanding;
use crate::snapshot::{AccountEntry, RuntimeSnapshot};

/// Candidates offered per acquire: choosing the least loaded of a few weighted random picks
/// balances nearly as well as looking at all, and keeps the coordination script's work small
/// however large the pool ("power of d choices").
const CANDIDATES_PER_ACQUIRE: usize = 4;

/// The accounts offered to the acquire step, in preference order: a few weighted picks
/// ([`CANDIDATES_PER_ACQUIRE`]); with a session, the account this replica last saw bound to it
/// first — and, when this replica knows no binding yet, a wider sample so the binding the
/// coordination store holds is likely among them.
pub(super) fn candidates(
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

/// The owner of a continuation as the only candidate.
pub(super) fn owner_candidate(snapshot: &RuntimeSnapshot, owner: AccountId) -> Vec<AccountCandidate> {
    let interval = Duration::from_millis(u64::from(snapshot.settings.request_interval_ms));
    snapshot.account(owner).map(|account| offered(account, interval)).into_iter().collect()
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
