//! Which request comes next: the shared budget (count, duration, rate) that every worker draws
//! tickets from with one atomic increment.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::config::Load;
use crate::usage;

pub struct Plan {
    warmup: u64,
    warmups_issued: AtomicU64,
    total: Option<u64>,
    duration: Option<Duration>,
    rate: Option<f64>,
    issued: AtomicU64,
    start: OnceLock<Start>,
}

/// The moment measuring started, on the clock and in this process's CPU time.
#[derive(Debug, Clone, Copy)]
pub struct Start {
    pub at: Instant,
    pub cpu: Option<Duration>,
}

/// Permission to start one measured request, not before `not_before` when a rate is set.
#[derive(Debug, Clone, Copy)]
pub struct Ticket {
    pub not_before: Option<Instant>,
}

impl Plan {
    pub fn new(load: &Load) -> Self {
        Self {
            warmup: load.warmup,
            warmups_issued: AtomicU64::new(0),
            total: load.requests,
            duration: load.duration,
            rate: load.rate,
            issued: AtomicU64::new(0),
            start: OnceLock::new(),
        }
    }

    /// True while warm-up requests remain.
    pub fn next_warmup(&self) -> bool {
        self.warmups_issued.fetch_add(1, Ordering::Relaxed) < self.warmup
    }

    /// When measuring started: the first call (after the warm-up barrier) fixes it.
    pub fn start(&self) -> Start {
        *self.start.get_or_init(|| Start { at: Instant::now(), cpu: usage::cpu_time() })
    }

    /// The next measured request, or `None` when the count is reached or the duration is over.
    /// With a rate, request `i` is scheduled at `start + i / rate` (an open schedule: a worker
    /// that falls behind starts at once, so the achieved rate is capped by the connections).
    pub fn next(&self) -> Option<Ticket> {
        let start = self.start().at;
        let index = self.issued.fetch_add(1, Ordering::Relaxed);
        if self.total.is_some_and(|total| index >= total) {
            return None;
        }
        let deadline = self.duration.map(|d| start + d);
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            return None;
        }
        let not_before = self.rate.map(|rate| start + Duration::from_secs_f64(index as f64 / rate));
        if let (Some(at), Some(deadline)) = (not_before, deadline)
            && at >= deadline
        {
            return None;
        }
        Some(Ticket { not_before })
    }
}
