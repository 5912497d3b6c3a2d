//! The drill's verdict: per attack kind, when its connections were closed against their
//! deadline; overall, the clients' errors and added p99 against the thresholds.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use super::phase::PhaseReport;
use super::{DrillArgs, Thresholds, millis};
use crate::attack::{AttackKind, Closed};
use crate::histogram::Histogram;

/// A close seen this much before its deadline still counts as on time: clock granularity only,
/// since a lifetime is counted from before the connect (the server's clock starts later).
const EARLY: Duration = Duration::from_millis(10);

#[derive(Debug, Clone, Serialize)]
pub struct AttackSummary {
    pub kind: AttackKind,
    pub connections: u64,
    pub connect_failed: u64,
    /// Closed within `[deadline_ms - 10, deadline_ms + slack]`.
    pub closed_in_time: u64,
    pub closed_early: u64,
    pub closed_late: u64,
    /// Still open when abandoned (deadline + 2 × slack).
    pub not_closed: u64,
    /// When this kind must be closed, from its connect (uploads: at once).
    pub deadline_ms: f64,
    pub lifetime_ms: Lifetimes,
    /// Statuses of the answers seen before the close (`none`: closed without one).
    pub answers: BTreeMap<String, u64>,
    /// Largest number of body bytes one connection got to write (uploads).
    pub max_bytes_sent: u64,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Lifetimes {
    pub min: Option<f64>,
    pub p50: Option<f64>,
    pub p99: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub passed: bool,
    pub failures: Vec<String>,
}

pub fn summarise(args: &DrillArgs, closed: &[Closed]) -> Vec<AttackSummary> {
    AttackKind::ALL
        .iter()
        .map(|kind| {
            let deadline = if *kind == AttackKind::Upload { Duration::ZERO } else { args.header_deadline };
            summarise_kind(*kind, deadline, args.slack, closed.iter().filter(|c| c.kind == *kind))
        })
        .collect()
}

fn summarise_kind<'a>(
    kind: AttackKind,
    deadline: Duration,
    slack: Duration,
    closed: impl Iterator<Item = &'a Closed>,
) -> AttackSummary {
    let mut summary = AttackSummary {
        kind,
        connections: 0,
        connect_failed: 0,
        closed_in_time: 0,
        closed_early: 0,
        closed_late: 0,
        not_closed: 0,
        deadline_ms: millis(deadline),
        lifetime_ms: Lifetimes::default(),
        answers: BTreeMap::new(),
        max_bytes_sent: 0,
    };
    let mut lifetimes = Histogram::new();
    for c in closed {
        summary.connections += 1;
        if c.connect_failed {
            summary.connect_failed += 1;
            continue;
        }
        let answer = c.status.map_or_else(|| "none".to_owned(), |s| s.to_string());
        *summary.answers.entry(answer).or_default() += 1;
        summary.max_bytes_sent = summary.max_bytes_sent.max(c.bytes_sent);
        match c.lifetime {
            None => summary.not_closed += 1,
            Some(lifetime) => {
                lifetimes.record(lifetime);
                if lifetime + EARLY < deadline {
                    summary.closed_early += 1;
                } else if lifetime > deadline + slack {
                    summary.closed_late += 1;
                } else {
                    summary.closed_in_time += 1;
                }
            }
        }
    }
    if let Some(s) = lifetimes.summary() {
        let ms = |us: u64| us as f64 / 1000.0;
        summary.lifetime_ms =
            Lifetimes { min: Some(ms(s.min)), p50: Some(ms(s.p50)), p99: Some(ms(s.p99)), max: Some(ms(s.max)) };
    }
    summary
}

impl Verdict {
    pub fn judge(
        baseline: &PhaseReport,
        attack: &PhaseReport,
        added_p99_ms: f64,
        attacks: &[AttackSummary],
        thresholds: &Thresholds,
        upload_bytes: u64,
    ) -> Self {
        let mut failures = Vec::new();
        for (name, phase) in [("baseline", baseline), ("attack", attack)] {
            if phase.errors > thresholds.client_errors {
                failures.push(format!("{name}: the clients saw {} errors", phase.errors));
            }
            if phase.requests_ok == 0 {
                failures.push(format!("{name}: no client request succeeded"));
            }
        }
        if added_p99_ms > thresholds.max_added_p99_ms {
            failures.push(format!("added p99 {added_p99_ms:.1} ms is above {:.1} ms", thresholds.max_added_p99_ms));
        }
        for a in attacks {
            let kind = a.kind.as_str();
            for (count, what) in [
                (a.connect_failed, "could not connect"),
                (a.closed_early, "were closed before their deadline"),
                (a.closed_late, "were closed after their deadline"),
                (a.not_closed, "were never closed"),
            ] {
                if count > 0 {
                    failures.push(format!("{kind}: {count} of {} connections {what}", a.connections));
                }
            }
            if a.kind == AttackKind::Upload {
                let wrong: u64 = a.answers.iter().filter(|(s, _)| *s != "401" && *s != "none").map(|(_, n)| n).sum();
                if wrong > 0 {
                    failures.push(format!("upload: {wrong} answers other than 401: {:?}", a.answers));
                }
                if a.connections > 0 && a.max_bytes_sent >= upload_bytes {
                    failures.push("upload: a whole unauthenticated body was accepted".to_owned());
                }
            }
        }
        Self { passed: failures.is_empty(), failures }
    }
}
