//! Open connections per origin and egress route: shared HTTP/2 connections (multiplexed, at
//! most [`MAX_STREAMS_PER_H2`] streams each, another connection past that), or idle HTTP/1.1
//! connections (one request at a time each). Connections carry no identity.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use hyper::client::conn::{http1, http2};

use super::Body;
use crate::connect::Target;

/// Origin + egress route (`None` = direct).
pub type PoolKey = (Target, Option<String>);

/// Most idle HTTP/1.1 connections kept per key.
const MAX_IDLE_PER_KEY: usize = 64;

/// Most streams the gateway opens at once on one HTTP/2 connection: the floor RFC 9113 asks
/// servers to allow (100). Past it the next request opens another connection, so no request
/// waits for a stream the server's own limit would hold back (hyper queues such a request
/// until a stream ends, which for a long answer is minutes).
pub const MAX_STREAMS_PER_H2: usize = 100;

#[derive(Default)]
pub struct Pool {
    inner: Mutex<HashMap<PoolKey, Entry>>,
    idle_timeout: Duration,
}

#[derive(Default)]
struct Entry {
    h2: Vec<H2Connection>,
    idle: Vec<(http1::SendRequest<Body>, Instant)>,
}

struct H2Connection {
    sender: http2::SendRequest<Body>,
    streams: Arc<AtomicUsize>,
}

/// One stream counted against its HTTP/2 connection until dropped (with the response body).
pub struct StreamSlot(Arc<AtomicUsize>);

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

pub enum Pooled {
    H2(http2::SendRequest<Body>, StreamSlot),
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
        entry.h2.retain(|connection| !connection.sender.is_closed());
        // The first connection with room, so that later ones drain when the load falls. The
        // count is read and raised under the pool's lock: two checkouts never take one slot.
        if let Some(connection) =
            entry.h2.iter().find(|connection| connection.streams.load(Ordering::Relaxed) < MAX_STREAMS_PER_H2)
        {
            connection.streams.fetch_add(1, Ordering::Relaxed);
            return Some(Pooled::H2(connection.sender.clone(), StreamSlot(connection.streams.clone())));
        }
        let now = Instant::now();
        while let Some((sender, since)) = entry.idle.pop() {
            if sender.is_ready() && !sender.is_closed() && now.duration_since(since) < self.idle_timeout {
                return Some(Pooled::H1(sender));
            }
        }
        None
    }

    /// Shares a new HTTP/2 connection for `key`; the slot is its first stream's.
    pub fn share_h2(&self, key: PoolKey, sender: http2::SendRequest<Body>) -> StreamSlot {
        let streams = Arc::new(AtomicUsize::new(1));
        self.lock().entry(key).or_default().h2.push(H2Connection { sender, streams: streams.clone() });
        StreamSlot(streams)
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

/// What a response holds of its connection until its body is complete: an HTTP/1.1
/// connection to give back, or an HTTP/2 stream slot to free.
pub enum Lease {
    H1(Checkin),
    H2(StreamSlot),
}

impl Lease {
    pub fn release(self) {
        match self {
            Self::H1(checkin) => checkin.give_back(),
            Self::H2(slot) => drop(slot),
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
