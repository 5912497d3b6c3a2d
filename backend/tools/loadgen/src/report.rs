//! The JSON report: every metric of a run under stable keys (documented in docs/loadgen.md).
//! Every key is always present; values that do not apply are `null`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::config::{Config, Output};
use crate::histogram::Histogram;
use crate::idle::IdleSummary;
use crate::runner::Outcome;
use crate::stats::{ErrorKind, Stats};
use crate::usage;

/// Bumped whenever a key changes meaning or disappears.
pub const SCHEMA: u32 = 1;

/// Exit code when `--fail-on-non-2xx` or `--fail-on-error` is set and the run broke it.
pub const EXIT_FAILED_CHECK: i32 = 3;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub schema: u32,
    pub tool: &'static str,
    pub version: &'static str,
    pub label: Option<String>,
    pub mode: &'static str,
    pub target: TargetReport,
    pub elapsed_s: f64,
    pub requests: Requests,
    pub errors: Errors,
    pub status: BTreeMap<String, u64>,
    pub bytes: Totals,
    pub events: Totals,
    pub connections: Connections,
    pub latency_us: Latency,
    pub expect_headers: Vec<HeaderCheck>,
    pub idle: Option<IdleSummary>,
    pub client: Client,
}

#[derive(Debug, Clone, Serialize)]
pub struct TargetReport {
    pub url: String,
    pub method: String,
    pub concurrency: usize,
    pub requests: Option<u64>,
    pub duration_s: Option<f64>,
    pub rate: Option<f64>,
    pub warmup: u64,
    pub timeout_s: f64,
    pub threads: usize,
    pub body_bytes: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Requests {
    /// ok + failed: measured requests that ended, whatever the outcome.
    pub completed: u64,
    pub ok: u64,
    pub failed: u64,
    /// Successful requests per second of `elapsed_s`.
    pub ok_per_s: f64,
    pub completed_per_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Errors {
    pub total: u64,
    pub connect: u64,
    pub reset: u64,
    pub timeout: u64,
    pub non_2xx: u64,
    pub protocol: u64,
    pub stream_failed: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Totals {
    pub total: u64,
    /// Mean per completed request.
    pub per_request: f64,
    pub per_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Connections {
    /// TCP connections (WebSocket handshakes in ws mode) opened while measuring.
    pub opened: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub connect: Summary,
    pub ttfb: Summary,
    pub first_event: Summary,
    pub event_gap: Summary,
    pub total: Summary,
}

/// One histogram in microseconds; all but `count` are `null` when `count` is 0.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Summary {
    pub count: u64,
    pub min: Option<u64>,
    pub mean: Option<f64>,
    pub p50: Option<u64>,
    pub p90: Option<u64>,
    pub p99: Option<u64>,
    pub p99_9: Option<u64>,
    pub max: Option<u64>,
}

/// What loadgen itself used while measuring (`null` where the OS does not report it).
#[derive(Debug, Clone, Serialize)]
pub struct Client {
    /// User + system CPU seconds over `elapsed_s` (10 ms resolution).
    pub cpu_s: Option<f64>,
    /// `cpu_s / elapsed_s`: near `target.threads` means loadgen was the bottleneck.
    pub cpu_share: Option<f64>,
    /// CPU microseconds per completed request.
    pub cpu_per_request_us: Option<f64>,
    /// Peak resident memory of the loadgen process, KiB.
    pub max_rss_kb: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HeaderCheck {
    pub header: String,
    pub prefix: Option<String>,
    pub checked: u64,
    pub violations: u64,
}

impl Report {
    pub fn new(config: &Config, outcome: &Outcome) -> Self {
        let stats = &outcome.stats;
        let seconds = outcome.elapsed.as_secs_f64();
        let per_s = |n: u64| if seconds > 0.0 { n as f64 / seconds } else { 0.0 };
        let completed = stats.ok + stats.failed();
        let per_request = |n: u64| if completed > 0 { n as f64 / completed as f64 } else { 0.0 };
        let error = |kind| stats.error_count(kind);
        Self {
            schema: SCHEMA,
            tool: "loadgen",
            version: env!("CARGO_PKG_VERSION"),
            label: config.output.label.clone(),
            mode: config.mode.as_str(),
            target: TargetReport {
                url: config.target.url.clone(),
                method: config.method.to_string(),
                concurrency: config.load.concurrency,
                requests: config.load.requests,
                duration_s: config.load.duration.map(|d| d.as_secs_f64()),
                rate: config.load.rate,
                warmup: config.load.warmup,
                timeout_s: config.timeout.as_secs_f64(),
                threads: config.output.threads,
                body_bytes: config.body.len(),
            },
            elapsed_s: seconds,
            requests: Requests {
                completed,
                ok: stats.ok,
                failed: stats.failed(),
                ok_per_s: per_s(stats.ok),
                completed_per_s: per_s(completed),
            },
            errors: Errors {
                total: stats.failed(),
                connect: error(ErrorKind::Connect),
                reset: error(ErrorKind::Reset),
                timeout: error(ErrorKind::Timeout),
                non_2xx: error(ErrorKind::Non2xx),
                protocol: error(ErrorKind::Protocol),
                stream_failed: error(ErrorKind::StreamFailed),
            },
            status: stats.statuses().map(|(code, n)| (code.to_string(), n)).collect(),
            bytes: Totals { total: stats.bytes, per_request: per_request(stats.bytes), per_s: per_s(stats.bytes) },
            events: Totals { total: stats.events, per_request: per_request(stats.events), per_s: per_s(stats.events) },
            connections: Connections { opened: stats.connections },
            latency_us: Latency {
                connect: summarize(&stats.connect),
                ttfb: summarize(&stats.ttfb),
                first_event: summarize(&stats.first_event),
                event_gap: summarize(&stats.event_gap),
                total: summarize(&stats.total),
            },
            expect_headers: header_checks(config, stats),
            idle: outcome.idle.clone(),
            client: Client {
                cpu_s: outcome.cpu.map(|c| c.as_secs_f64()),
                cpu_share: outcome.cpu.filter(|_| seconds > 0.0).map(|c| c.as_secs_f64() / seconds),
                cpu_per_request_us: outcome
                    .cpu
                    .filter(|_| completed > 0)
                    .map(|c| c.as_secs_f64() * 1e6 / completed as f64),
                max_rss_kb: usage::max_rss_kb(),
            },
        }
    }

    /// 0, or `EXIT_FAILED_CHECK` when a `--fail-on-*` condition holds.
    pub fn exit_code(&self, output: &Output) -> i32 {
        let non_2xx = output.fail_on_non_2xx && self.errors.non_2xx > 0;
        let any_error =
            output.fail_on_error && (self.errors.total > 0 || self.expect_headers.iter().any(|h| h.violations > 0));
        if non_2xx || any_error { EXIT_FAILED_CHECK } else { 0 }
    }
}

fn summarize(histogram: &Histogram) -> Summary {
    match histogram.summary() {
        None => Summary { count: 0, min: None, mean: None, p50: None, p90: None, p99: None, p99_9: None, max: None },
        Some(s) => Summary {
            count: s.count,
            min: Some(s.min),
            mean: Some(s.mean),
            p50: Some(s.p50),
            p90: Some(s.p90),
            p99: Some(s.p99),
            p99_9: Some(s.p99_9),
            max: Some(s.max),
        },
    }
}

fn header_checks(config: &Config, stats: &Stats) -> Vec<HeaderCheck> {
    config
        .expectations
        .iter()
        .zip(&stats.header_violations)
        .map(|(e, violations)| HeaderCheck {
            header: e.name.to_string(),
            prefix: e.prefix.clone(),
            checked: stats.header_checks,
            violations: *violations,
        })
        .collect()
}
