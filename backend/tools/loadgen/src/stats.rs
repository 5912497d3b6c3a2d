//! What one worker task measured, merged into one `Stats` at the end of a run.
//!
//! Every worker owns its `Stats` (no locks, no atomics on the hot path); `Trace` holds what is
//! known about the request in flight and is folded in when the request ends, whatever its outcome.

use std::time::{Duration, Instant};

use crate::histogram::Histogram;

/// Why a request did not succeed. Names are stable: they are JSON keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The TCP connection (or the WebSocket handshake's TCP part) could not be made.
    Connect,
    /// The peer closed or reset the connection before the response was complete.
    Reset,
    /// The per-request timeout expired.
    Timeout,
    /// The response status was not 2xx (a refused WebSocket upgrade counts here too).
    Non2xx,
    /// The response could not be parsed, or was not what the mode expects.
    Protocol,
    /// The stream carried a failure event (`response.failed`, `error`, ...).
    StreamFailed,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 6] = [
        ErrorKind::Connect,
        ErrorKind::Reset,
        ErrorKind::Timeout,
        ErrorKind::Non2xx,
        ErrorKind::Protocol,
        ErrorKind::StreamFailed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Connect => "connect",
            ErrorKind::Reset => "reset",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Non2xx => "non_2xx",
            ErrorKind::Protocol => "protocol",
            ErrorKind::StreamFailed => "stream_failed",
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

#[derive(Debug, Clone)]
pub struct Stats {
    pub ok: u64,
    pub errors: [u64; ErrorKind::ALL.len()],
    /// `(status, count)`, in order of first appearance: a run sees a handful of codes.
    status: Vec<(u16, u64)>,
    pub bytes: u64,
    pub events: u64,
    pub connections: u64,
    pub connect: Histogram,
    pub ttfb: Histogram,
    pub first_event: Histogram,
    pub event_gap: Histogram,
    pub total: Histogram,
    /// Responses (or WebSocket handshakes) whose headers were checked against `--expect-header`.
    pub header_checks: u64,
    /// Per `--expect-header`, in the order given: responses where it was missing or wrong.
    pub header_violations: Vec<u64>,
    /// When this worker finished its last request.
    pub finished_at: Option<Instant>,
}

impl Stats {
    pub fn new(expectations: usize) -> Self {
        Self {
            ok: 0,
            errors: [0; ErrorKind::ALL.len()],
            status: Vec::new(),
            bytes: 0,
            events: 0,
            connections: 0,
            connect: Histogram::new(),
            ttfb: Histogram::new(),
            first_event: Histogram::new(),
            event_gap: Histogram::new(),
            total: Histogram::new(),
            header_checks: 0,
            header_violations: vec![0; expectations],
            finished_at: None,
        }
    }

    pub fn error_count(&self, kind: ErrorKind) -> u64 {
        self.errors[kind.slot()]
    }

    pub fn failed(&self) -> u64 {
        self.errors.iter().sum()
    }

    pub fn count_error(&mut self, kind: ErrorKind) {
        self.errors[kind.slot()] += 1;
    }

    pub fn count_status(&mut self, status: u16) {
        self.add_status(status, 1);
    }

    fn add_status(&mut self, status: u16, count: u64) {
        match self.status.iter_mut().find(|(code, _)| *code == status) {
            Some((_, n)) => *n += count,
            None => self.status.push((status, count)),
        }
    }

    /// `(status, count)` for every status seen.
    pub fn statuses(&self) -> impl Iterator<Item = (u16, u64)> + '_ {
        self.status.iter().copied()
    }

    /// Folds one finished request in. Latency histograms only take successful requests; bytes,
    /// events and status count for every request.
    pub fn finish(&mut self, trace: Trace, outcome: Result<(), ErrorKind>) {
        self.bytes += trace.bytes;
        self.events += trace.events;
        if let Some(status) = trace.status {
            self.count_status(status);
        }
        match outcome {
            Ok(()) => {
                self.ok += 1;
                let end = Instant::now();
                if let Some(ttfb) = trace.ttfb {
                    self.ttfb.record(ttfb);
                }
                if let Some(first) = trace.first_event {
                    self.first_event.record(first.saturating_duration_since(trace.start));
                }
                self.total.record(end.saturating_duration_since(trace.start));
            }
            Err(kind) => self.count_error(kind),
        }
    }

    pub fn merge(&mut self, other: &Stats) {
        self.ok += other.ok;
        for (mine, theirs) in self.errors.iter_mut().zip(other.errors) {
            *mine += theirs;
        }
        for &(code, count) in &other.status {
            self.add_status(code, count);
        }
        self.bytes += other.bytes;
        self.events += other.events;
        self.connections += other.connections;
        self.connect.merge(&other.connect);
        self.ttfb.merge(&other.ttfb);
        self.first_event.merge(&other.first_event);
        self.event_gap.merge(&other.event_gap);
        self.total.merge(&other.total);
        self.header_checks += other.header_checks;
        for (mine, theirs) in self.header_violations.iter_mut().zip(&other.header_violations) {
            *mine += theirs;
        }
        self.finished_at = match (self.finished_at, other.finished_at) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
}

/// The request in flight: what has been seen so far, kept outside the request future so that a
/// timeout does not lose it.
#[derive(Debug, Clone, Copy)]
pub struct Trace {
    pub start: Instant,
    pub ttfb: Option<Duration>,
    pub status: Option<u16>,
    pub first_event: Option<Instant>,
    pub last_event: Option<Instant>,
    pub bytes: u64,
    pub events: u64,
}

impl Trace {
    pub fn start() -> Self {
        Self {
            start: Instant::now(),
            ttfb: None,
            status: None,
            first_event: None,
            last_event: None,
            bytes: 0,
            events: 0,
        }
    }

    /// Records `count` events completed at `at`: the first sets time-to-first-event, each
    /// later one adds a gap (events completed by the same chunk are 0 µs apart).
    pub fn events_at(&mut self, at: Instant, count: u64, gaps: &mut Histogram) {
        if count == 0 {
            return;
        }
        let mut remaining = count;
        match self.last_event {
            None => {
                self.first_event = Some(at);
                remaining -= 1;
            }
            Some(last) => {
                gaps.record(at.saturating_duration_since(last));
                remaining -= 1;
            }
        }
        for _ in 0..remaining {
            gaps.record_micros(0);
        }
        self.last_event = Some(at);
        self.events += count;
    }
}
