//! The upstream socket pool: sockets keyed by account and conversation (a client WebSocket
//! session), findable by the last response each completed, bounded per account and in total,
//! retired by age (before the upstream's 60-minute limit) and idleness.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use gateway_core::domain::AccountId;

use super::connect::Socket;

#[derive(Debug, Clone, Copy)]
pub struct PoolLimits {
    pub max_age: Duration,
    pub idle_timeout: Duration,
    pub per_account: usize,
    pub total: usize,
}

impl Default for PoolLimits {
    fn default() -> Self {
        Self {
            max_age: Duration::from_secs(55 * 60),
            idle_timeout: Duration::from_secs(10 * 60),
            per_account: 64,
            total: 4096,
        }
    }
}

/// One upstream socket. The socket itself is behind an async mutex: one response at a time.
pub struct PooledSocket {
    pub id: u64,
    pub account: AccountId,
    conversation: Mutex<Option<u64>>,
    created: Instant,
    last_used: Mutex<Instant>,
    last_response: Mutex<Option<String>>,
    pub socket: Arc<tokio::sync::Mutex<Socket>>,
    broken: AtomicBool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl PooledSocket {
    pub fn last_response(&self) -> Option<String> {
        lock(&self.last_response).clone()
    }

    /// Records the response the upstream now holds for this socket.
    pub fn completed(&self, response_id: Option<String>) {
        *lock(&self.last_response) = response_id;
        *lock(&self.last_used) = Instant::now();
    }

    pub fn bind(&self, conversation: Option<u64>) {
        if conversation.is_some() {
            *lock(&self.conversation) = conversation;
        }
        *lock(&self.last_used) = Instant::now();
    }

    /// The socket failed: never hand it out again.
    pub fn mark_broken(&self) {
        self.broken.store(true, Ordering::Relaxed);
    }

    fn usable(&self, limits: &PoolLimits) -> bool {
        !self.broken.load(Ordering::Relaxed)
            && self.created.elapsed() < limits.max_age
            && lock(&self.last_used).elapsed() < limits.idle_timeout
    }

    fn idle(&self) -> bool {
        self.socket.try_lock().is_ok()
    }
}

pub struct SocketPool {
    limits: PoolLimits,
    sockets: Mutex<Vec<Arc<PooledSocket>>>,
    next_id: AtomicU64,
    /// Lookups that found a live socket (a turn that may reuse it).
    found: AtomicU64,
}

impl SocketPool {
    pub fn new(limits: PoolLimits) -> Self {
        Self { limits, sockets: Mutex::new(Vec::new()), next_id: AtomicU64::new(1), found: AtomicU64::new(0) }
    }

    /// Drops retired sockets (broken, too old, idle too long).
    fn prune(&self, sockets: &mut Vec<Arc<PooledSocket>>) {
        sockets.retain(|s| s.usable(&self.limits));
    }

    /// The live socket of `account` bound to `conversation`.
    pub fn for_conversation(&self, account: AccountId, conversation: u64) -> Option<Arc<PooledSocket>> {
        let mut sockets = lock(&self.sockets);
        self.prune(&mut sockets);
        let found =
            sockets.iter().find(|s| s.account == account && *lock(&s.conversation) == Some(conversation)).cloned();
        self.count_found(found)
    }

    fn count_found(&self, found: Option<Arc<PooledSocket>>) -> Option<Arc<PooledSocket>> {
        if found.is_some() {
            self.found.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Open sockets, sockets opened so far, and lookups that found a live one.
    pub fn stats(&self) -> gateway_core::telemetry::SocketPoolStats {
        gateway_core::telemetry::SocketPoolStats {
            open: self.len() as u64,
            opened: self.next_id.load(Ordering::Relaxed).saturating_sub(1),
            reused: self.found.load(Ordering::Relaxed),
        }
    }

    /// The live socket of `account` whose upstream state holds `response_id`.
    pub fn for_response(&self, account: AccountId, response_id: &str) -> Option<Arc<PooledSocket>> {
        let mut sockets = lock(&self.sockets);
        self.prune(&mut sockets);
        let found =
            sockets.iter().find(|s| s.account == account && s.last_response().as_deref() == Some(response_id)).cloned();
        self.count_found(found)
    }

    /// Adds a new socket, evicting idle ones when a cap is reached. `None` when every socket of
    /// the account (or of the pool) is busy: the caller uses HTTP instead.
    pub fn insert(&self, account: AccountId, conversation: Option<u64>, socket: Socket) -> Option<Arc<PooledSocket>> {
        let mut sockets = lock(&self.sockets);
        self.prune(&mut sockets);
        // A conversation has one socket: a new one replaces the old binding.
        for existing in sockets.iter().filter(|s| conversation.is_some() && *lock(&s.conversation) == conversation) {
            *lock(&existing.conversation) = None;
        }
        let per_account = sockets.iter().filter(|s| s.account == account).count();
        if per_account >= self.limits.per_account && !evict_one(&mut sockets, |s| s.account == account) {
            return None;
        }
        if sockets.len() >= self.limits.total && !evict_one(&mut sockets, |_| true) {
            return None;
        }
        let now = Instant::now();
        let pooled = Arc::new(PooledSocket {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            account,
            conversation: Mutex::new(conversation),
            created: now,
            last_used: Mutex::new(now),
            last_response: Mutex::new(None),
            socket: Arc::new(tokio::sync::Mutex::new(socket)),
            broken: AtomicBool::new(false),
        });
        sockets.push(pooled.clone());
        Some(pooled)
    }

    pub fn len(&self) -> usize {
        lock(&self.sockets).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Removes the least recently used idle socket matching `filter`; `false` if none is idle.
fn evict_one(sockets: &mut Vec<Arc<PooledSocket>>, filter: impl Fn(&PooledSocket) -> bool) -> bool {
    let victim = sockets
        .iter()
        .enumerate()
        .filter(|(_, s)| filter(s) && s.idle())
        .min_by_key(|(_, s)| *lock(&s.last_used))
        .map(|(i, _)| i);
    match victim {
        Some(index) => {
            sockets.swap_remove(index);
            true
        }
        None => false,
    }
}
