//! A bounded in-process map whose entries expire: at most `capacity` entries (the oldest write
//! is evicted first) and each readable for `ttl` after it was written. Providers use it for
//! short-lived per-conversation state that must never grow without bound (the xAI reasoning
//! replay cache, PROTOCOL H.7).
//!
//! Time is tokio's clock (`tokio::time::Instant`), so expiry is testable with paused time.
//! Writes and reads take one short lock; values are cloned out (use an `Arc` for big ones).

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

pub struct ExpiringMap<K, V> {
    capacity: usize,
    ttl: Duration,
    inner: Mutex<Inner<K, V>>,
}

struct Inner<K, V> {
    entries: HashMap<K, Slot<V>>,
    /// Write order: sequence number → key. With one TTL for all, the oldest write expires first.
    order: BTreeMap<u64, K>,
    next: u64,
}

struct Slot<V> {
    value: V,
    written: Instant,
    seq: u64,
}

impl<K: Eq + Hash + Clone, V: Clone> ExpiringMap<K, V> {
    /// A map of at most `capacity` (at least 1) entries, each living `ttl`.
    pub fn new(capacity: usize, ttl: Duration) -> Self {
        let inner = Inner { entries: HashMap::new(), order: BTreeMap::new(), next: 0 };
        Self { capacity: capacity.max(1), ttl, inner: Mutex::new(inner) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<K, V>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes `value` for `key` (replacing and renewing an earlier one); evicts expired entries
    /// and then the oldest while over capacity.
    pub fn insert(&self, key: K, value: V) {
        let now = Instant::now();
        let mut inner = self.lock();
        inner.purge(now, self.ttl);
        if let Some(old) = inner.entries.remove(&key) {
            inner.order.remove(&old.seq);
        }
        let seq = inner.next;
        inner.next += 1;
        inner.order.insert(seq, key.clone());
        inner.entries.insert(key, Slot { value, written: now, seq });
        while inner.entries.len() > self.capacity {
            let Some((_, oldest)) = inner.order.pop_first() else { break };
            inner.entries.remove(&oldest);
        }
    }

    /// The live value of `key`, if any.
    pub fn get(&self, key: &K) -> Option<V> {
        let now = Instant::now();
        let mut inner = self.lock();
        inner.purge(now, self.ttl);
        inner.entries.get(key).map(|slot| slot.value.clone())
    }

    pub fn remove(&self, key: &K) -> Option<V> {
        let mut inner = self.lock();
        let slot = inner.entries.remove(key)?;
        inner.order.remove(&slot.seq);
        Some(slot.value)
    }

    /// Live entries.
    pub fn len(&self) -> usize {
        let mut inner = self.lock();
        inner.purge(Instant::now(), self.ttl);
        inner.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<K: Eq + Hash + Clone, V> Inner<K, V> {
    /// Drops entries written `ttl` or longer ago (oldest first).
    fn purge(&mut self, now: Instant, ttl: Duration) {
        while let Some((&seq, key)) = self.order.first_key_value() {
            let expired = self.entries.get(key).is_none_or(|slot| now.duration_since(slot.written) >= ttl);
            if !expired {
                break;
            }
            let key = key.clone();
            self.order.remove(&seq);
            self.entries.remove(&key);
        }
    }
}
