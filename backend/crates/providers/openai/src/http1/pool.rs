//! Idle keep-alive connections of one client, most recently used first.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::conn::Conn;

pub struct Pool {
    /// Oldest at the front; taken from and returned to the back.
    idle: Mutex<VecDeque<(Conn, Instant)>>,
    max_idle: usize,
    idle_timeout: Duration,
}

impl Pool {
    pub fn new(max_idle: usize, idle_timeout: Duration) -> Self {
        Self { idle: Mutex::new(VecDeque::new()), max_idle, idle_timeout }
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<(Conn, Instant)>> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A usable idle connection; expired, closed or dirty ones met on the way are dropped.
    pub fn checkout(&self) -> Option<Conn> {
        loop {
            let (mut conn, since) = self.lock().pop_back()?;
            if since.elapsed() <= self.idle_timeout && conn.is_usable() {
                return Some(conn);
            }
        }
    }

    /// Keeps a connection whose last exchange ended cleanly.
    pub fn checkin(&self, mut conn: Conn) {
        conn.release_if_empty();
        let now = Instant::now();
        let (expired, refused) = {
            let mut idle = self.lock();
            let stale = idle.iter().take_while(|(_, since)| now.duration_since(*since) > self.idle_timeout).count();
            let expired: Vec<_> = idle.drain(..stale).collect();
            let refused = if idle.len() < self.max_idle {
                idle.push_back((conn, now));
                None
            } else {
                Some(conn)
            };
            (expired, refused)
        };
        // Sockets close outside the lock.
        drop((expired, refused));
    }
}
