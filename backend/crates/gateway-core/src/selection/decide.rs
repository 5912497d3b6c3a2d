//! The decision procedure.

use std::cmp::Ordering;
use std::time::Duration;

use super::order::{compare, ranks, strategy_order};
use super::view::{Binding, CandidateView, Decision, SelectionView};
use crate::coordination::time::duration_millis;
use crate::coordination::{AffinityOutcome, CandidateVerdict, Ineligible};

/// The hard filters of one candidate at `now`, first failing check wins: cooldown, model
/// exclusion, cap, request interval. `None` = eligible.
pub fn verdict(candidate: &CandidateView, now: crate::coordination::UnixMillis) -> Option<Ineligible> {
    let state = &candidate.state;
    let interval = duration_millis(candidate.candidate.request_interval);
    if state.cool_until > now {
        Some(Ineligible::CoolingDown { until: state.cool_until })
    } else if state.excluded_until > now {
        Some(Ineligible::ModelExcluded { until: state.excluded_until })
    } else if state.in_flight >= candidate.candidate.max_in_flight {
        Some(Ineligible::AtCap { in_flight: state.in_flight, cap: candidate.candidate.max_in_flight })
    } else {
        let since = state.last_start.map(|start| now.0.saturating_sub(start.0));
        since
            .filter(|since| interval > 0 && *since < interval)
            .map(|since| Ineligible::IntervalWait { wait: Duration::from_millis(interval - since) })
    }
}

/// Decides one acquire: the bound account when it is eligible, else the best eligible candidate
/// under the strategy's keys (ties to the earlier candidate), else every candidate's reason.
pub fn decide(view: &SelectionView) -> Decision {
    let verdicts: Vec<Option<Ineligible>> = view.candidates.iter().map(|c| verdict(c, view.now)).collect();
    let (bound_choice, affinity) = affinity(view, &verdicts);
    let chosen = bound_choice.or_else(|| best(view, &verdicts));
    match chosen {
        Some(index) => Decision::Chosen { index, affinity },
        None => Decision::NoAccount(
            view.candidates
                .iter()
                .zip(verdicts)
                .filter_map(|(c, reason)| {
                    reason.map(|reason| CandidateVerdict { account: c.candidate.account, reason })
                })
                .collect(),
        ),
    }
}

/// The session binding: an eligible bound account is chosen (`Hit`); one that is only busy (cap,
/// interval) is bypassed and kept; one that failed (the replaced attempt's), cools down, is
/// excluded or is no longer offered is rebound to whatever the strategy picks.
fn affinity(view: &SelectionView, verdicts: &[Option<Ineligible>]) -> (Option<usize>, AffinityOutcome) {
    let bound = match view.binding {
        Binding::NotRequested => return (None, AffinityOutcome::NotRequested),
        Binding::Unbound => return (None, AffinityOutcome::Bound),
        Binding::Bound(bound) => bound,
    };
    let Some(index) = view.candidates.iter().position(|c| c.candidate.account == bound) else {
        return (None, AffinityOutcome::Rebound { from: bound });
    };
    match verdicts[index] {
        None => (Some(index), AffinityOutcome::Hit),
        _ if view.replaced == Some(bound) => (None, AffinityOutcome::Rebound { from: bound }),
        Some(Ineligible::CoolingDown { .. } | Ineligible::ModelExcluded { .. }) => {
            (None, AffinityOutcome::Rebound { from: bound })
        }
        Some(_) => (None, AffinityOutcome::Bypassed { bound }),
    }
}

/// The eligible candidate no other eligible one is strictly preferred to; the earliest such.
fn best(view: &SelectionView, verdicts: &[Option<Ineligible>]) -> Option<usize> {
    let keys = strategy_order(view.strategy);
    let standings: Vec<_> = view.candidates.iter().map(|c| c.candidate.standing).collect();
    let ranks = ranks(&standings, view.strategy);
    let mut chosen: Option<usize> = None;
    for (i, candidate) in view.candidates.iter().enumerate() {
        if verdicts[i].is_some() {
            continue;
        }
        let better = chosen.is_none_or(|best| {
            compare(keys, candidate, ranks[i], &view.candidates[best], ranks[best]) == Ordering::Less
        });
        if better {
            chosen = Some(i);
        }
    }
    chosen
}
