//! The attack drill: a baseline phase in which N clients stream through the gateway, then an
//! attack phase in which the same clients stream while hostile connections (slow heads,
//! unauthenticated uploads, idle sockets) are held open; then a verdict against thresholds.
//!
//! The clients are loadgen's SSE mode; the attackers are [`crate::attack`]. Slow-head and idle
//! attackers re-open their connection when the server closes it, so the attack keeps its size
//! for the whole phase; every upload is made once, at the start. When the phase ends no attacker
//! re-opens and the drill waits until the server has closed every hostile connection.

pub mod phase;
pub mod verdict;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use serde::Serialize;

use crate::cli::parse_duration;

pub use phase::{AttackCounts, PhaseReport};
pub use verdict::{AttackSummary, Verdict};

#[derive(Debug, Clone, Parser)]
#[command(name = "drill", version, about = "Attack drill against a Switchboard gateway (see docs/reliability.md)")]
pub struct DrillArgs {
    /// The gateway's `POST /v1/responses` URL: http://127.0.0.1:PORT/v1/responses.
    pub url: String,
    /// A client key for the streaming clients.
    #[arg(long)]
    pub key: String,
    /// The streaming clients' request body, inline or `@PATH`.
    #[arg(short = 'd', long)]
    pub body: String,
    /// Streaming clients, one keep-alive connection each.
    #[arg(long, default_value_t = 16)]
    pub clients: usize,
    /// Requests before the baseline phase, not measured.
    #[arg(long, default_value_t = 100)]
    pub warmup: u64,
    /// Length of the baseline phase and of the attack phase.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub phase: Duration,
    /// Slow-head connections held during the attack.
    #[arg(long, default_value_t = 1000)]
    pub slow_headers: usize,
    /// Unauthenticated uploads started at once when the attack begins.
    #[arg(long, default_value_t = 100)]
    pub uploads: usize,
    /// Idle connections held during the attack.
    #[arg(long, default_value_t = 3000)]
    pub idle: usize,
    /// The announced size of each upload.
    #[arg(long, default_value_t = 30 * 1024 * 1024)]
    pub upload_bytes: u64,
    /// The gateway's `server.header_read_timeout_seconds`: when slow heads and idle sockets must
    /// be closed.
    #[arg(long, value_parser = parse_duration)]
    pub header_deadline: Duration,
    /// How late after its deadline a close may be seen (an upload's deadline is its connect).
    #[arg(long, default_value = "3s", value_parser = parse_duration)]
    pub slack: Duration,
    /// Pause between two header lines of a slow head.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub trickle: Duration,
    /// Largest accepted difference between the clients' p99 under attack and at baseline.
    #[arg(long, default_value = "50ms", value_parser = parse_duration)]
    pub max_added_p99: Duration,
    /// The gateway's process id, to sample its resident memory (Linux `/proc`).
    #[arg(long)]
    pub gateway_pid: Option<u32>,
    /// Runtime worker threads of the drill.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Write the JSON report here (`-` for stdout).
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Everything a drill measured and decided.
#[derive(Debug, Clone, Serialize)]
pub struct DrillReport {
    pub baseline: PhaseReport,
    pub attack: PhaseReport,
    /// Attack p99 minus baseline p99 of the clients' whole-request time, in milliseconds.
    pub added_p99_ms: f64,
    pub attacks: Vec<AttackSummary>,
    pub gateway_rss_mb: Option<RssReport>,
    pub thresholds: Thresholds,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Serialize)]
pub struct Thresholds {
    pub client_errors: u64,
    pub max_added_p99_ms: f64,
    pub header_deadline_ms: f64,
    pub slack_ms: f64,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct RssReport {
    pub at_start: f64,
    pub baseline_max: f64,
    pub attack_max: f64,
    /// `VmHWM`: the peak since the process started.
    pub peak: f64,
}

pub fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> anyhow::Result<DrillArgs> {
    let args = DrillArgs::try_parse_from(args)?;
    anyhow::ensure!(args.clients > 0, "--clients must be at least 1");
    anyhow::ensure!(!args.header_deadline.is_zero(), "--header-deadline must be above zero");
    Ok(args)
}

/// Runs both phases and judges them.
pub async fn run(args: &DrillArgs) -> anyhow::Result<DrillReport> {
    let rss = args.gateway_pid.map(phase::RssSampler::start);
    let at_start = rss.as_ref().map(phase::RssSampler::take_max);
    let baseline = phase::clients(args, args.warmup).await.context("baseline phase")?;
    let baseline_rss = rss.as_ref().map(phase::RssSampler::take_max);
    let (attack, closed) = phase::under_attack(args).await.context("attack phase")?;
    let attack_rss = rss.as_ref().map(phase::RssSampler::take_max);
    let gateway_rss_mb = match (args.gateway_pid, at_start, baseline_rss, attack_rss) {
        (Some(pid), Some(at_start), Some(baseline_max), Some(attack_max)) => {
            // VmHWM lags the samples a little: the peak is at least what was sampled.
            let peak = phase::peak_rss_mb(pid).unwrap_or(0.0).max(baseline_max).max(attack_max);
            Some(RssReport { at_start, baseline_max, attack_max, peak })
        }
        _ => None,
    };
    let added_p99_ms = attack.total_p99_ms - baseline.total_p99_ms;
    let attacks = verdict::summarise(args, &closed);
    let thresholds = Thresholds {
        client_errors: 0,
        max_added_p99_ms: millis(args.max_added_p99),
        header_deadline_ms: millis(args.header_deadline),
        slack_ms: millis(args.slack),
    };
    let verdict = Verdict::judge(&baseline, &attack, added_p99_ms, &attacks, &thresholds, args.upload_bytes);
    Ok(DrillReport { baseline, attack, added_p99_ms, attacks, gateway_rss_mb, thresholds, verdict })
}

pub fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
