//! The idle-hold mode: open N SSE streams, one connection each, and keep them open for a while,
//! reading at most one chunk per stream per read interval, so that the server's memory with N
//! open streams can be sampled. Once every stream is open (or has failed) a note goes to stderr
//! and, if asked, to a ready file; then the hold begins.
//!
//! The per-request timeout covers opening a stream (until its response headers), not the hold.
//!
//! With a `ws://` URL each connection is a WebSocket that first makes one request (the body as
//! a text frame, read until its terminal frame) and then stays open, idle, for the hold: the
//! server's memory with N idle WebSocket sessions (and the upstream sockets they keep).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::http::HttpClient;
use crate::runner::Outcome;
use crate::stats::{ErrorKind, Stats, Trace};
use crate::usage;
use crate::websocket::WsClient;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IdleSummary {
    /// Streams asked for.
    pub streams: u64,
    /// Streams that got a 2xx `text/event-stream` response.
    pub opened: u64,
    /// Streams still open when the hold ended.
    pub open_at_end: u64,
    /// Streams the server ended cleanly before the hold ended.
    pub ended_early: u64,
    /// Streams that failed to open or broke during the hold (see `errors`).
    pub failed: u64,
    /// Seconds from the start until every stream was open or had failed.
    pub open_s: f64,
    /// Seconds the streams were held after that.
    pub hold_s: f64,
}

enum End {
    Open,
    EndedEarly,
    Failed,
}

pub async fn run(config: Arc<Config>) -> anyhow::Result<Outcome> {
    let idle = config.idle.clone().context("idle mode without idle settings")?;
    let streams = config.load.concurrency;
    // One slot per stream: no sender ever waits.
    let (opened_tx, mut opened_rx) = mpsc::channel::<bool>(streams);
    let cancel = CancellationToken::new();
    let start = Instant::now();
    let cpu_start = usage::cpu_time();
    let mut tasks = JoinSet::new();
    for _ in 0..streams {
        if config.target.websocket {
            tasks.spawn(hold_websocket(config.clone(), opened_tx.clone(), cancel.clone()));
        } else {
            tasks.spawn(hold(config.clone(), opened_tx.clone(), cancel.clone()));
        }
    }
    drop(opened_tx);
    let mut opened = 0u64;
    let mut reported = 0usize;
    while reported < streams {
        match opened_rx.recv().await {
            Some(ok) => {
                reported += 1;
                opened += u64::from(ok);
            }
            None => break,
        }
    }
    let open_s = start.elapsed().as_secs_f64();
    let note = serde_json::json!({ "streams": streams, "opened": opened, "failed": streams as u64 - opened, "open_s": open_s });
    if let Some(path) = &idle.ready_file {
        std::fs::write(path, format!("{note}\n")).with_context(|| format!("writing {}", path.display()))?;
    }
    if !config.output.quiet {
        eprintln!(
            "loadgen idle: {opened}/{streams} streams open after {open_s:.2}s, holding {:.1}s",
            idle.hold.as_secs_f64()
        );
    }
    let hold_start = Instant::now();
    tokio::time::sleep(idle.hold).await;
    cancel.cancel();
    let mut stats = Stats::new(config.expectations.len());
    let mut summary = IdleSummary {
        streams: streams as u64,
        opened,
        open_at_end: 0,
        ended_early: 0,
        failed: 0,
        open_s,
        hold_s: hold_start.elapsed().as_secs_f64(),
    };
    while let Some(done) = tasks.join_next().await {
        let (stream_stats, end) = done.context("an idle stream task failed")?;
        stats.merge(&stream_stats);
        match end {
            End::Open => summary.open_at_end += 1,
            End::EndedEarly => summary.ended_early += 1,
            End::Failed => summary.failed += 1,
        }
    }
    let cpu = usage::cpu_time().zip(cpu_start).map(|(end, begin)| end.saturating_sub(begin));
    Ok(Outcome { stats, elapsed: start.elapsed(), cpu, idle: Some(summary) })
}

async fn hold_websocket(config: Arc<Config>, opened: mpsc::Sender<bool>, cancel: CancellationToken) -> (Stats, End) {
    let mut stats = Stats::new(config.expectations.len());
    let mut client = WsClient::new(config);
    let completed = client.request(&mut stats).await;
    let _ = opened.try_send(completed);
    if !completed {
        return (stats, End::Failed);
    }
    let end = match client.hold_until(&cancel).await {
        Ok(true) => End::Open,
        Ok(false) => End::EndedEarly,
        Err(_) => End::Failed,
    };
    (stats, end)
}

async fn hold(config: Arc<Config>, opened: mpsc::Sender<bool>, cancel: CancellationToken) -> (Stats, End) {
    let mut stats = Stats::new(config.expectations.len());
    let mut client = HttpClient::new(config.clone());
    let mut trace = Trace::start();
    let started = match tokio::time::timeout(config.timeout, client.start(&mut trace, &mut stats)).await {
        Ok(Ok((head, _))) if !head.status.is_success() => Err(ErrorKind::Non2xx),
        Ok(Ok((head, _))) if !head.event_stream => Err(ErrorKind::Protocol),
        Ok(started) => started.map(|(_, body)| body),
        Err(_) => Err(ErrorKind::Timeout),
    };
    // The channel has a slot per stream and the receiver outlives every sender's use.
    let _ = opened.try_send(started.is_ok());
    let mut body = match started {
        Ok(body) => body,
        Err(kind) => {
            stats.finish(trace, Err(kind));
            return (stats, End::Failed);
        }
    };
    let interval = config.idle.as_ref().map_or(Duration::from_secs(1), |i| i.read_interval);
    let end = loop {
        tokio::select! {
            _ = cancel.cancelled() => break Ok(End::Open),
            _ = tokio::time::sleep(interval) => {}
        }
        let chunk = tokio::select! {
            _ = cancel.cancelled() => break Ok(End::Open),
            chunk = client.next_chunk(&mut body) => chunk,
        };
        match chunk {
            Ok(Some(data)) => {
                trace.bytes += data.len() as u64;
                let scan = client.event_scanner().feed(&data);
                if scan.events > 0 && trace.first_event.is_none() {
                    trace.first_event = Some(Instant::now());
                }
                trace.events += scan.events;
            }
            Ok(None) => break Ok(End::EndedEarly),
            Err(kind) => break Err(kind),
        }
    };
    match end {
        Ok(end) => {
            stats.finish(trace, Ok(()));
            (stats, end)
        }
        Err(kind) => {
            stats.finish(trace, Err(kind));
            (stats, End::Failed)
        }
    }
}
