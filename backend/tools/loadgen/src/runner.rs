//! A run from start to end: warm-up, a barrier, the measured phase, and the merge of every
//! worker's statistics. One task per connection; each task owns its connection and its `Stats`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::Barrier;
use tokio::task::JoinSet;

use crate::config::{Config, Mode};
use crate::http::HttpClient;
use crate::idle::{self, IdleSummary};
use crate::plan::Plan;
use crate::stats::Stats;
use crate::usage;
use crate::websocket::WsClient;

/// Everything a run measured, before it is shaped into a report.
pub struct Outcome {
    pub stats: Stats,
    /// From the start of measuring to the end of the last request.
    pub elapsed: Duration,
    /// CPU time loadgen used over `elapsed` (user + system), where the OS reports it.
    pub cpu: Option<Duration>,
    pub idle: Option<IdleSummary>,
}

pub async fn run(config: Arc<Config>) -> anyhow::Result<Outcome> {
    match config.mode {
        Mode::Idle => idle::run(config).await,
        Mode::Sse | Mode::Json | Mode::Ws => load(config).await,
    }
}

async fn load(config: Arc<Config>) -> anyhow::Result<Outcome> {
    let connections = config.load.concurrency;
    let plan = Arc::new(Plan::new(&config.load));
    let barrier = Arc::new(Barrier::new(connections));
    let mut workers = JoinSet::new();
    for _ in 0..connections {
        workers.spawn(worker(config.clone(), plan.clone(), barrier.clone()));
    }
    let mut stats = Stats::new(config.expectations.len());
    while let Some(done) = workers.join_next().await {
        stats.merge(&done.context("a worker task failed")?);
    }
    let start = plan.start();
    let elapsed = stats.finished_at.unwrap_or_else(Instant::now).saturating_duration_since(start.at);
    let cpu = usage::cpu_time().zip(start.cpu).map(|(end, begin)| end.saturating_sub(begin));
    Ok(Outcome { stats, elapsed, cpu, idle: None })
}

enum Session {
    Http(HttpClient),
    Ws(WsClient),
}

impl Session {
    fn new(config: Arc<Config>) -> Self {
        match config.mode {
            Mode::Ws => Session::Ws(WsClient::new(config)),
            _ => Session::Http(HttpClient::new(config)),
        }
    }

    async fn request(&mut self, stats: &mut Stats) {
        match self {
            Session::Http(client) => client.request(stats).await,
            Session::Ws(client) => {
                client.request(stats).await;
            }
        }
    }
}

async fn worker(config: Arc<Config>, plan: Arc<Plan>, barrier: Arc<Barrier>) -> Stats {
    let expectations = config.expectations.len();
    let mut session = Session::new(config);
    let mut warmup = Stats::new(expectations);
    while plan.next_warmup() {
        session.request(&mut warmup).await;
    }
    drop(warmup);
    barrier.wait().await;
    let mut stats = Stats::new(expectations);
    while let Some(ticket) = plan.next() {
        if let Some(at) = ticket.not_before {
            tokio::time::sleep_until(at.into()).await;
        }
        session.request(&mut stats).await;
    }
    stats.finished_at = Some(Instant::now());
    stats
}
