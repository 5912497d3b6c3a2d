//! Open connections per origin and egress route: one shared HTTP/2 connection (multiplexed),
//! or idle HTTP/1.1 connections (one request at a time each). Connections carry no identity.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use hyper::client::conn::{http1, http2};

use super::Body;
use crate::connect::Target;

/// Origin + egress route (`None` = direct).
pub type PoolKey = (Target, Option<String>);

/// Most idle HTTP/1.1 connections kept per key.
const MAX_IDLE_PER_KEY: usize = 64;

#[derive(Default)]
pub struct Pool {
    inner: Mutex<HashMap<PoolKey, Entry>>,
    idle_timeout: Duration,
}

#[derive(Default)]
struct Entry {
    h2: Option<http2::SendRequest<Body>>,
    idle: Vec<(http1::SendRequest<Body>, Instant)>,
}

pub enum Pooled {
    H2(http2::SendRequest<Body>),
    H1(http1::SendRequest<Body>),
}

impl Pool {
    pub fn new(idle_timeout: Duration) -> Arc<Self> {
        Arc::new(Self { inner: Mutex::default(), idle_timeout })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PoolKey, Entry>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A usable connection for `key`, if one is open.
    pub fn checkout(&self, key: &PoolKey) -> Option<Pooled> {
        let mut pool = self.lock();
        let entry = pool.get_mut(key)?;
        if let Some(h2) = &entry.h2 {
            if !h2.is_closed() {
                return Some(Pooled::H2(h2.clone()));
            }
            entry.h2 = None;
        }
        let now = Instant::now();
        while let Some((sender, since)) = entry.idle.pop() {
            if sender.is_ready() && !sender.is_closed() && now.duration_since(since) < self.idle_timeout {
                return Some(Pooled::H1(sender));
            }
        }
        None
    }

    /// Shares a new HTTP/2 connection for `key`.
    pub fn share_h2(&self, key: PoolKey, sender: http2::SendRequest<Body>) {
        self.lock().entry(key).or_default().h2 = Some(sender);
    }

    fn checkin_h1(&self, key: PoolKey, sender: http1::SendRequest<Body>) {
        if sender.is_closed() {
            return;
        }
        let mut pool = self.lock();
        let entry = pool.entry(key).or_default();
        if entry.idle.len() < MAX_IDLE_PER_KEY {
            entry.idle.push((sender, Instant::now()));
        }
    }
}

/// An HTTP/1.1 connection to give back once its response body is complete.
pub struct Checkin {
    pub pool: Arc<Pool>,
    pub key: PoolKey,
    pub sender: http1::SendRequest<Body>,
}

impl Checkin {
    pub fn give_back(self) {
        self.pool.checkin_h1(self.key, self.sender);
    }
}
