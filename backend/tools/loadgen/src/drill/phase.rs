//! The two phases of a drill, and the gateway's memory sampled while they run.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::DrillArgs;
use crate::attack::{self, AttackKind, Closed};
use crate::report::{Report, Summary};

/// What the streaming clients saw in one phase.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseReport {
    pub elapsed_s: f64,
    pub requests_ok: u64,
    pub errors: u64,
    /// Errors by kind (connect, reset, timeout, non_2xx, protocol, stream_failed).
    pub error_kinds: crate::report::Errors,
    pub total_p50_ms: f64,
    pub total_p99_ms: f64,
    pub first_event_p99_ms: f64,
    /// Hostile connections opened during the phase, by kind (attack phase only).
    pub attack_connections: Option<AttackCounts>,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct AttackCounts {
    pub slow_header: u64,
    pub upload: u64,
    pub idle: u64,
}

impl PhaseReport {
    fn from_report(report: &Report) -> Self {
        let ms =
            |summary: &Summary, pick: fn(&Summary) -> Option<u64>| pick(summary).map_or(0.0, |us| us as f64 / 1000.0);
        Self {
            elapsed_s: report.elapsed_s,
            requests_ok: report.requests.ok,
            errors: report.errors.total,
            error_kinds: report.errors.clone(),
            total_p50_ms: ms(&report.latency_us.total, |s| s.p50),
            total_p99_ms: ms(&report.latency_us.total, |s| s.p99),
            first_event_p99_ms: ms(&report.latency_us.first_event, |s| s.p99),
            attack_connections: None,
        }
    }
}

/// The streaming clients for one phase: loadgen's SSE mode, `--clients` keep-alive
/// connections for `--phase`.
pub async fn clients(args: &DrillArgs, warmup: u64) -> anyhow::Result<PhaseReport> {
    let config = client_config(args, warmup)?;
    let report = crate::run(Arc::new(config)).await?;
    Ok(PhaseReport::from_report(&report))
}

fn client_config(args: &DrillArgs, warmup: u64) -> anyhow::Result<crate::Config> {
    let auth = format!("authorization: Bearer {}", args.key);
    let concurrency = args.clients.to_string();
    let phase = format!("{}ms", args.phase.as_millis());
    let warmup = warmup.to_string();
    let argv = [
        "loadgen",
        "sse",
        &args.url,
        "-H",
        &auth,
        "-d",
        &args.body,
        "-c",
        &concurrency,
        "-z",
        &phase,
        "--warmup",
        &warmup,
        "--timeout",
        "60s",
        "-q",
    ];
    crate::config_from_args(argv).context("the clients' load")
}

/// The attack phase: hostile connections opened at once, then the clients' phase while they
/// are held, then the wait until the server has closed every one of them.
pub async fn under_attack(args: &DrillArgs) -> anyhow::Result<(PhaseReport, Vec<Closed>)> {
    let config = client_config(args, 0)?;
    let target = Arc::new(attack::Target {
        addr: config.target.addr,
        authority: config.target.authority.to_str().unwrap_or("localhost").to_owned(),
        path: config.target.path.to_string(),
        upload_bytes: args.upload_bytes,
        trickle: args.trickle,
        give_up: args.header_deadline + 2 * args.slack,
    });
    let stop = CancellationToken::new();
    let opened = Arc::new(Counters::default());
    let mut attackers = JoinSet::new();
    for (kind, count) in
        [(AttackKind::SlowHeader, args.slow_headers), (AttackKind::Upload, args.uploads), (AttackKind::Idle, args.idle)]
    {
        for _ in 0..count {
            attackers.spawn(slot(kind, target.clone(), stop.clone(), opened.clone()));
        }
    }
    // The clients start once every hostile connection of the first round is open (or after a
    // bounded ramp on a machine that cannot open them that fast).
    let first_round = (args.slow_headers + args.uploads + args.idle) as u64;
    let ramp = tokio::time::Instant::now() + Duration::from_secs(10);
    while opened.total() < first_round && tokio::time::Instant::now() < ramp {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let report = crate::run(Arc::new(config)).await;
    stop.cancel();
    let mut closed = Vec::new();
    while let Some(done) = attackers.join_next().await {
        closed.extend(done.context("an attacker task failed")?);
    }
    let mut phase = PhaseReport::from_report(&report?);
    phase.attack_connections = Some(opened.counts());
    Ok((phase, closed))
}

#[derive(Debug, Default)]
struct Counters {
    slow_header: AtomicU64,
    upload: AtomicU64,
    idle: AtomicU64,
}

impl Counters {
    fn of(&self, kind: AttackKind) -> &AtomicU64 {
        match kind {
            AttackKind::SlowHeader => &self.slow_header,
            AttackKind::Upload => &self.upload,
            AttackKind::Idle => &self.idle,
        }
    }

    fn total(&self) -> u64 {
        AttackKind::ALL.iter().map(|k| self.of(*k).load(Ordering::Relaxed)).sum()
    }

    fn counts(&self) -> AttackCounts {
        AttackCounts {
            slow_header: self.slow_header.load(Ordering::Relaxed),
            upload: self.upload.load(Ordering::Relaxed),
            idle: self.idle.load(Ordering::Relaxed),
        }
    }
}

/// One attacker: slow heads and idle sockets re-open until the phase ends; an upload is made
/// once.
async fn slot(
    kind: AttackKind,
    target: Arc<attack::Target>,
    stop: CancellationToken,
    opened: Arc<Counters>,
) -> Vec<Closed> {
    let mut closed = Vec::new();
    loop {
        let ended = attack::run(kind, &target, opened.of(kind)).await;
        closed.push(ended);
        if kind == AttackKind::Upload || stop.is_cancelled() || ended.connect_failed {
            return closed;
        }
    }
}

/// Samples the gateway's resident memory every 100 ms while it lives (the task is aborted
/// with the sampler).
pub struct RssSampler {
    max_kb: Arc<AtomicU64>,
    pid: u32,
    _task: JoinSet<()>,
}

impl RssSampler {
    pub fn start(pid: u32) -> Self {
        let max_kb = Arc::new(AtomicU64::new(0));
        let mut task = JoinSet::new();
        let sampled = max_kb.clone();
        task.spawn(async move {
            loop {
                if let Some(kb) = status_kb(pid, "VmRSS:") {
                    sampled.fetch_max(kb, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        Self { max_kb, pid, _task: task }
    }

    /// The largest RSS since the last call (MB), and a fresh start for the next phase.
    pub fn take_max(&self) -> f64 {
        let now = status_kb(self.pid, "VmRSS:").unwrap_or(0);
        let max = self.max_kb.swap(now, Ordering::Relaxed).max(now);
        max as f64 / 1024.0
    }
}

/// `VmHWM` of `pid` in MB: its peak resident memory since it started.
pub fn peak_rss_mb(pid: u32) -> Option<f64> {
    status_kb(pid, "VmHWM:").map(|kb| kb as f64 / 1024.0)
}

fn status_kb(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with(field))?.split_whitespace().nth(1)?.parse().ok()
}
