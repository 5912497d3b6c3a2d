//! The strategies as ordered comparison keys, and the static ranks they use.

use std::cmp::Ordering;

use super::standing::QuotaStanding;
use super::view::CandidateView;
use crate::domain::RotationStrategy;

/// One comparison between two eligible candidates; the first key that differs decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderKey {
    /// Fewer in-flight slots per unit of weight first (`in_flight / weight`, compared exactly by
    /// cross-multiplication).
    Load,
    /// Lower static rank first (see [`ranks`]).
    Rank,
    /// Least recently started first; never started before any started one.
    LeastRecent,
    /// Most recently started first; never started after every started one.
    MostRecent,
    /// Heavier weight first.
    Heavier,
}

impl OrderKey {
    /// The word `acquire.lua` knows this key by.
    pub fn word(self) -> &'static str {
        match self {
            Self::Load => "load",
            Self::Rank => "rank",
            Self::LeastRecent => "lru",
            Self::MostRecent => "mru",
            Self::Heavier => "heavy",
        }
    }
}

/// The keys of each strategy (SPEC §4), after the hard filters and the session binding:
///
/// - `smart`: in-flight per weight, then window usage, then the earliest reset (the rank), then
///   least recent use, then weight;
/// - `quota_reset_priority`: earliest reset, then window usage (the rank), then in-flight per
///   weight, then least recent use;
/// - `round_robin`: least recently started first (a rotation shared by every replica, since the
///   last start is the store's), ties to the heavier;
/// - `sticky`: the most recently started (the last used) while it stays eligible, ties to the
///   heavier.
pub fn strategy_order(strategy: RotationStrategy) -> &'static [OrderKey] {
    use OrderKey::{Heavier, LeastRecent, Load, MostRecent, Rank};
    match strategy {
        RotationStrategy::Smart => &[Load, Rank, LeastRecent, Heavier],
        RotationStrategy::QuotaResetPriority => &[Rank, Load, LeastRecent, Heavier],
        RotationStrategy::RoundRobin => &[LeastRecent, Heavier],
        RotationStrategy::Sticky => &[MostRecent, Heavier],
    }
}

/// The strategy's keys as `acquire.lua` reads them (space-separated words).
pub fn strategy_words(strategy: RotationStrategy) -> String {
    strategy_order(strategy).iter().map(|key| key.word()).collect::<Vec<_>>().join(" ")
}

/// Each candidate's static rank under `strategy`: dense (equal facts, equal rank), 0 = best.
/// `smart` ranks by (window usage, earliest reset), `quota_reset_priority` by (earliest reset,
/// window usage); the other strategies do not use ranks (all 0). Unknown resets sort last.
pub fn ranks(standings: &[QuotaStanding], strategy: RotationStrategy) -> Vec<u32> {
    let key = |standing: &QuotaStanding| {
        let reset = standing.next_reset.unwrap_or(i64::MAX);
        let used = i64::from(standing.used_basis_points);
        match strategy {
            RotationStrategy::Smart => (used, reset),
            RotationStrategy::QuotaResetPriority => (reset, used),
            RotationStrategy::RoundRobin | RotationStrategy::Sticky => (0, 0),
        }
    };
    let mut distinct: Vec<(i64, i64)> = standings.iter().map(key).collect();
    distinct.sort_unstable();
    distinct.dedup();
    standings.iter().map(|s| u32::try_from(distinct.partition_point(|k| *k < key(s))).unwrap_or(u32::MAX)).collect()
}

/// How `a` (rank `rank_a`) compares with `b` under `keys`: `Less` = `a` is preferred.
pub fn compare(keys: &[OrderKey], a: &CandidateView, rank_a: u32, b: &CandidateView, rank_b: u32) -> Ordering {
    let last = |c: &CandidateView| c.state.last_start.map_or(-1, |t| i128::from(t.0));
    let weight = |c: &CandidateView| u64::from(c.candidate.weight.max(1));
    for key in keys {
        let order = match key {
            OrderKey::Load => {
                (u64::from(a.state.in_flight) * weight(b)).cmp(&(u64::from(b.state.in_flight) * weight(a)))
            }
            OrderKey::Rank => rank_a.cmp(&rank_b),
            OrderKey::LeastRecent => last(a).cmp(&last(b)),
            OrderKey::MostRecent => last(b).cmp(&last(a)),
            OrderKey::Heavier => weight(b).cmp(&weight(a)),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}
