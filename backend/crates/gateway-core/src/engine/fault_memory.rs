//! A replica-local memory of recent faults: how many times in a row an account hit a fault
//! whose cooldown grows on repeats (a challenge, an edge block, a 429 without a deadline), and
//! which egress paths were just challenged or blocked, so that new requests prefer accounts
//! behind other paths for a while. A success of the account starts its count over.
//!
//! The cooldowns themselves live in the coordination store (shared by the replicas); this
//! memory only sizes them and orders the candidates. It costs a success one atomic load while
//! no fault is remembered.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::domain::AccountId;
use crate::fault::Fault;

/// Accounts and paths remembered before the memory starts over.
const CAPACITY: usize = 10_000;
/// A streak older than this has ended without a success being seen.
const STREAK_FORGOTTEN_AFTER: Duration = Duration::from_secs(3600);

#[derive(Default)]
pub struct FaultMemory {
    /// Entries remembered (streaks and avoided paths): zero lets the success path and the
    /// candidate filter skip the lock. Written under the lock.
    remembered: AtomicUsize,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    streaks: HashMap<(AccountId, Fault), Streak>,
    /// Egress paths avoided until the instant, by the path's stable name.
    avoided: HashMap<String, Instant>,
}

#[derive(Debug, Clone, Copy)]
struct Streak {
    count: u32,
    last: Instant,
}

impl FaultMemory {
    /// Counts one more `fault` on `account`; returns the faults in a row, this one included.
    pub fn repeat(&self, account: AccountId, fault: Fault, now: Instant) -> u32 {
        self.with(|inner| {
            if inner.streaks.len() >= CAPACITY {
                inner.streaks.clear();
            }
            let streak = inner.streaks.entry((account, fault)).or_insert(Streak { count: 0, last: now });
            if now.duration_since(streak.last) > STREAK_FORGOTTEN_AFTER {
                streak.count = 0;
            }
            streak.count = streak.count.saturating_add(1);
            streak.last = now;
            streak.count
        })
    }

    /// The account served: its streaks start over.
    pub fn succeeded(&self, account: AccountId) {
        if self.remembered.load(Ordering::Relaxed) == 0 {
            return;
        }
        self.with(|inner| inner.streaks.retain(|(id, _), _| *id != account));
    }

    /// Prefers accounts behind other paths than `path` until `until`.
    pub fn avoid_path(&self, path: &str, until: Instant) {
        self.with(|inner| {
            if inner.avoided.len() >= CAPACITY {
                inner.avoided.clear();
            }
            let entry = inner.avoided.entry(path.to_owned()).or_insert(until);
            *entry = (*entry).max(until);
        });
    }

    /// The paths avoided at `now` (empty, without taking the lock, while nothing is remembered).
    pub fn avoided_paths(&self, now: Instant) -> Vec<String> {
        if self.remembered.load(Ordering::Relaxed) == 0 {
            return Vec::new();
        }
        self.with(|inner| {
            inner.avoided.retain(|_, until| *until > now);
            inner.avoided.keys().cloned().collect()
        })
    }

    fn with<T>(&self, change: impl FnOnce(&mut Inner) -> T) -> T {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let result = change(&mut inner);
        self.remembered.store(inner.streaks.len() + inner.avoided.len(), Ordering::Relaxed);
        result
    }
}
