//! Candidate accounts for one attempt, in the order the rotation strategy prefers, at most `K`
//! of them — chosen in O(K) per request so that a pool of thousands of accounts costs the hot
//! path no more than a pool of ten.
//!
//! A [`CandidatePool`] holds the accounts of one (key scope, provider, model) that pass the
//! static filters (enabled, working credential, model served); it is built once per snapshot
//! and cached. Per request, [`CandidatePool::pick`] applies the dynamic filters (accounts
//! already tried by this request, quota exhausted until its reset) and the strategy.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::domain::{AccountId, QuotaState, RotationStrategy, quota_window};
use crate::snapshot::AccountEntry;

/// One account of a pool with what the strategies sort on.
#[derive(Debug, Clone)]
struct Member {
    index: usize,
    id: AccountId,
    weight: u32,
    /// Highest used percentage among the account's quota windows (0 when unknown).
    used_percent: f64,
    /// Earliest quota reset (unix seconds), for `quota_reset_priority`.
    next_reset: Option<i64>,
    /// Exhausted by clear evidence until this instant (unix seconds).
    exhausted_until: Option<i64>,
}

/// Accounts of one scope × provider × model, with a weighted sampler.
#[derive(Debug)]
pub struct CandidatePool {
    members: Vec<Member>,
    /// Vose alias table over the weights.
    alias: Vec<(f64, usize)>,
    /// Members ordered for `quota_reset_priority` (soonest reset first).
    by_reset: Vec<usize>,
    /// Members ordered for `sticky` (heaviest, then oldest first).
    by_weight: Vec<usize>,
    cursor: AtomicUsize,
    /// Member position by account id.
    positions: std::collections::HashMap<AccountId, usize>,
}

/// Retry an exhausted account whose reset time is unknown after this long.
const UNKNOWN_RESET_RETRY_SECONDS: i64 = 15 * 60;

impl CandidatePool {
    pub fn build<'a>(accounts: impl Iterator<Item = (usize, &'a AccountEntry)>) -> Self {
        let members: Vec<Member> = accounts
            .map(|(index, account)| {
                let quota = &account.record.quota;
                let used_percent = quota.windows.iter().map(|w| w.used_percent).fold(0.0, f64::max);
                let next_reset = quota_window::next_reset(&quota.windows);
                // Exhausted until the full windows reset (the latest of them); without a full
                // window, until the next reset; without any reset time, retry after a while.
                let exhausted_until = (quota.state == QuotaState::Exhausted).then(|| {
                    quota_window::exhausted_reset(&quota.windows).unwrap_or_else(|| {
                        quota.observed_at.map_or(0, |t| t.unix_timestamp()) + UNKNOWN_RESET_RETRY_SECONDS
                    })
                });
                Member {
                    index,
                    id: account.id(),
                    weight: u32::from(account.record.scheduling.weight.get()),
                    used_percent,
                    next_reset,
                    exhausted_until,
                }
            })
            .collect();
        let alias = alias_table(&members.iter().map(|m| f64::from(m.weight)).collect::<Vec<_>>());
        let mut by_reset: Vec<usize> = (0..members.len()).collect();
        by_reset.sort_by_key(|i| {
            (members[*i].next_reset.unwrap_or(i64::MAX), u32::MAX - members[*i].weight, members[*i].id)
        });
        let mut by_weight: Vec<usize> = (0..members.len()).collect();
        by_weight.sort_by_key(|i| (u32::MAX - members[*i].weight, members[*i].id));
        let positions = members.iter().enumerate().map(|(i, m)| (m.id, i)).collect();
        Self {
            members,
            alias,
            by_reset,
            by_weight,
            cursor: AtomicUsize::new(fastrand::usize(..usize::MAX / 2)),
            positions,
        }
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    fn usable(&self, member: &Member, excluded: &[AccountId], now_unix: i64) -> bool {
        !excluded.contains(&member.id) && member.exhausted_until.is_none_or(|until| until <= now_unix)
    }

    /// The snapshot index of `account` when it is a usable member of this pool.
    pub fn usable_member(&self, account: AccountId, excluded: &[AccountId], now_unix: i64) -> Option<usize> {
        let position = *self.positions.get(&account)?;
        let member = &self.members[position];
        self.usable(member, excluded, now_unix).then_some(member.index)
    }

    /// The earliest moment (unix seconds) a member not in `excluded` is usable: `now_unix` when
    /// one is usable now, else the end of the soonest quota exhaustion; `None` when every member
    /// is excluded.
    pub fn earliest_usable(&self, excluded: &[AccountId], now_unix: i64) -> Option<i64> {
        self.members
            .iter()
            .filter(|member| !excluded.contains(&member.id))
            .map(|member| member.exhausted_until.map_or(now_unix, |until| until.max(now_unix)))
            .min()
    }

    /// Up to `k` snapshot indices in preference order.
    pub fn pick(&self, strategy: RotationStrategy, k: usize, excluded: &[AccountId], now_unix: i64) -> Vec<usize> {
        let mut picked: Vec<usize> = Vec::with_capacity(k.min(self.members.len()));
        match strategy {
            RotationStrategy::Smart => {
                self.sample_weighted(k, excluded, now_unix, &mut picked);
                // Least-used quota first, in 10 % bands so weights still decide within a band.
                picked.sort_by_key(|m| (self.members[*m].used_percent / 10.0) as u32);
            }
            RotationStrategy::QuotaResetPriority => {
                self.take_ordered(&self.by_reset, 0, k, excluded, now_unix, &mut picked)
            }
            RotationStrategy::Sticky => self.take_ordered(&self.by_weight, 0, k, excluded, now_unix, &mut picked),
            RotationStrategy::RoundRobin => {
                let start = self.cursor.fetch_add(1, Ordering::Relaxed);
                self.take_ordered(&self.by_weight, start, k, excluded, now_unix, &mut picked);
            }
        }
        picked.into_iter().map(|m| self.members[m].index).collect()
    }

    fn take_ordered(
        &self,
        order: &[usize],
        start: usize,
        k: usize,
        excluded: &[AccountId],
        now: i64,
        out: &mut Vec<usize>,
    ) {
        let n = order.len();
        for offset in 0..n {
            if out.len() >= k {
                break;
            }
            let member = order[(start + offset) % n];
            if self.usable(&self.members[member], excluded, now) {
                out.push(member);
            }
        }
    }

    /// Weighted sampling without replacement: exact (Efraimidis–Spirakis) for small pools, alias
    /// draws with rejection for large ones.
    fn sample_weighted(&self, k: usize, excluded: &[AccountId], now: i64, out: &mut Vec<usize>) {
        let n = self.members.len();
        if n <= 4 * k {
            let mut keyed: Vec<(f64, usize)> = (0..n)
                .filter(|m| self.usable(&self.members[*m], excluded, now))
                .map(|m| (fastrand::f64().powf(1.0 / f64::from(self.members[m].weight)), m))
                .collect();
            keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
            out.extend(keyed.into_iter().take(k).map(|(_, m)| m));
            return;
        }
        let mut draws = 0;
        while out.len() < k && draws < 8 * k {
            draws += 1;
            let slot = fastrand::usize(..n);
            let (threshold, alias) = self.alias[slot];
            let member = if fastrand::f64() < threshold { slot } else { alias };
            if !out.contains(&member) && self.usable(&self.members[member], excluded, now) {
                out.push(member);
            }
        }
        if out.len() < k {
            // Heavily excluded pool: finish with a linear scan from a random start.
            let start = fastrand::usize(..n);
            for offset in 0..n {
                if out.len() >= k {
                    break;
                }
                let member = (start + offset) % n;
                if !out.contains(&member) && self.usable(&self.members[member], excluded, now) {
                    out.push(member);
                }
            }
        }
    }
}

/// Vose's alias method: `(probability of keeping the slot, alias)` per slot.
fn alias_table(weights: &[f64]) -> Vec<(f64, usize)> {
    let n = weights.len();
    if n == 0 {
        return Vec::new();
    }
    let total: f64 = weights.iter().sum();
    let mut scaled: Vec<f64> = weights.iter().map(|w| w * n as f64 / total).collect();
    let mut table = vec![(1.0, 0); n];
    let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|i| scaled[*i] < 1.0);
    while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
        small.pop();
        table[s] = (scaled[s], l);
        scaled[l] -= 1.0 - scaled[s];
        if scaled[l] < 1.0 {
            large.pop();
            small.push(l);
        }
    }
    for i in large.into_iter().chain(small) {
        table[i] = (1.0, i);
    }
    table
}
