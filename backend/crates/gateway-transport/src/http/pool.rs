//! Open connections per origin and egress route: shared HTTP/2 connections (multiplexed, at
//! most [`MAX_STREAMS_PER_H2`] streams each, another connection past that), or idle HTTP/1.1
//! connections (one request at a time each). Connections carry no identity.
//!
//! A burst of requests to an origin with no room left does not dial once per request: while
//! an HTTP/2 connection is being opened, later requests wait for it, up to the streams it will
//! take ([`Pool::join_dial`]); past that they open another. Origins known to speak HTTP/1.1
//! (and plain `http://`) dial once per request as before.

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
    /// The last connection opened answered HTTP/1.1 (no multiplexing to wait for).
    speaks_h1: bool,
    dials: Vec<Arc<PendingDial>>,
}

/// A connection being opened, and the requests waiting for it.
struct PendingDial {
    waiting: AtomicUsize,
    done: tokio::sync::watch::Sender<bool>,
}

/// Held by the request that opens a connection; dropping it (connection shared, failed, or
/// the request gone) wakes the waiters.
pub struct DialTicket {
    pool: Arc<Pool>,
    key: PoolKey,
    dial: Option<Arc<PendingDial>>,
}

impl Drop for DialTicket {
    fn drop(&mut self) {
        let Some(dial) = self.dial.take() else { return };
        if let Some(entry) = self.pool.lock().get_mut(&self.key) {
            entry.dials.retain(|other| !Arc::ptr_eq(other, &dial));
        }
        dial.done.send_replace(true);
    }
}

/// A wait for a connection another request is opening.
pub struct DialWait(tokio::sync::watch::Receiver<bool>);

impl DialWait {
    /// Resolves when the dial has ended, whichever way.
    pub async fn finished(mut self) {
        let _ = self.0.wait_for(|done| *done).await;
    }
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

    /// A connection being opened for `key` that will likely take one more stream: the request
    /// waits for it instead of opening its own. None for origins known to speak HTTP/1.1 and
    /// for plain `http://` (`may_multiplex: false`).
    pub fn join_dial(&self, key: &PoolKey, may_multiplex: bool) -> Option<DialWait> {
        if !may_multiplex {
            return None;
        }
        let mut pool = self.lock();
        let entry = pool.get_mut(key)?;
        if entry.speaks_h1 {
            return None;
        }
        // The dialing request takes the connection's first stream.
        let dial = entry.dials.iter().find(|dial| dial.waiting.load(Ordering::Relaxed) + 1 < MAX_STREAMS_PER_H2)?;
        dial.waiting.fetch_add(1, Ordering::Relaxed);
        Some(DialWait(dial.done.subscribe()))
    }

    /// Records that a connection for `key` is being opened, until the ticket is dropped.
    pub fn start_dial(self: &Arc<Self>, key: &PoolKey, may_multiplex: bool) -> DialTicket {
        let mut ticket = DialTicket { pool: self.clone(), key: key.clone(), dial: None };
        if !may_multiplex {
            return ticket;
        }
        let mut pool = self.lock();
        let entry = pool.entry(key.clone()).or_default();
        // Nobody waits for a dial to an origin that answers HTTP/1.1 (`join_dial`).
        if !entry.speaks_h1 {
            let dial =
                Arc::new(PendingDial { waiting: AtomicUsize::new(0), done: tokio::sync::watch::Sender::new(false) });
            entry.dials.push(dial.clone());
            ticket.dial = Some(dial);
        }
        drop(pool);
        ticket
    }

    /// The origin answered a new connection with HTTP/1.1: later requests do not wait for
    /// each other's dials.
    pub fn note_h1(&self, key: &PoolKey) {
        self.lock().entry(key.clone()).or_default().speaks_h1 = true;
    }

    /// Shares a new HTTP/2 connection for `key`; the slot is its first stream's.
    pub fn share_h2(&self, key: PoolKey, sender: http2::SendRequest<Body>) -> StreamSlot {
        let streams = Arc::new(AtomicUsize::new(1));
        let mut pool = self.lock();
        let entry = pool.entry(key).or_default();
        entry.speaks_h1 = false;
        entry.h2.push(H2Connection { sender, streams: streams.clone() });
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
