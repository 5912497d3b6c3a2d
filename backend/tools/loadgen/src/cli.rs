//! The command line: one subcommand per mode, shared options flattened in.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "loadgen",
    version,
    about = "HTTP/1.1 SSE, JSON and WebSocket load generator for Switchboard benchmarks"
)]
pub struct Cli {
    #[command(subcommand)]
    pub mode: ModeCommand,
}

#[derive(Debug, Subcommand)]
pub enum ModeCommand {
    /// POST a body and read a `text/event-stream` response, counting events.
    Sse(LoadArgs),
    /// POST a body and read the whole response body.
    Json(LoadArgs),
    /// Connect to a ws:// URL, send the body as one text frame per request and read text frames
    /// until one whose JSON `type` is `response.completed`, `response.failed` or `error`.
    Ws(LoadArgs),
    /// Open N SSE streams and hold them open, reading slowly (for server memory per stream).
    Idle(IdleArgs),
}

#[derive(Debug, Args)]
pub struct Common {
    /// Target URL: http://127.0.0.1:PORT/path (ws://... for the ws mode).
    pub url: String,
    /// HTTP method; default POST when a body is given, else GET (ignored by ws).
    #[arg(short = 'X', long)]
    pub method: Option<String>,
    /// Request header `name: value` (repeatable).
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Request body inline, or `@PATH` to read it from a file.
    #[arg(short = 'd', long, conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Request body from a file.
    #[arg(long, value_name = "PATH")]
    pub body_file: Option<PathBuf>,
    /// Per-request timeout (connect + response + whole body), e.g. 30s, 500ms.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Require a response header on every response: `name`, or `name: prefix` to also require
    /// the value to start with prefix (repeatable).
    #[arg(long = "expect-header", value_name = "NAME[: PREFIX]")]
    pub expect_headers: Vec<String>,
    /// SSE `event:` name that marks a failed stream (repeatable; default response.failed, error).
    #[arg(long = "failure-event", value_name = "NAME")]
    pub failure_events: Vec<String>,
    /// Write the JSON report to FILE (`-` for stdout).
    #[arg(long = "json", value_name = "FILE")]
    pub json: Option<String>,
    /// Free-form label copied into the report (e.g. gateway, simulator).
    #[arg(long)]
    pub label: Option<String>,
    /// Runtime worker threads; 1 runs everything on one thread (least interference).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Exit 3 if any response was not 2xx.
    #[arg(long)]
    pub fail_on_non_2xx: bool,
    /// Exit 3 if any request failed for any reason or any expected header was missing.
    #[arg(long)]
    pub fail_on_error: bool,
    /// Do not print the table on stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct LoadArgs {
    #[command(flatten)]
    pub common: Common,
    /// Keep-alive connections, one task each.
    #[arg(short = 'c', long, default_value_t = 1)]
    pub concurrency: usize,
    /// Measured requests in total (default 200 when no --duration is given).
    #[arg(short = 'n', long)]
    pub requests: Option<u64>,
    /// Measure for this long (in-flight requests then finish); with -n, whichever ends first.
    #[arg(short = 'z', long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Target request starts per second over all connections (open schedule, capped by -c).
    #[arg(long)]
    pub rate: Option<f64>,
    /// Requests made before measuring starts, excluded from every metric.
    #[arg(long, default_value_t = 0)]
    pub warmup: u64,
}

#[derive(Debug, Args)]
pub struct IdleArgs {
    #[command(flatten)]
    pub common: Common,
    /// Streams to open and hold (one connection each).
    #[arg(short = 'c', long = "streams", alias = "concurrency", default_value_t = 100)]
    pub streams: usize,
    /// How long to hold the streams once all are open.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub hold: Duration,
    /// Read at most one chunk per stream this often.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub read_interval: Duration,
    /// Write a one-line JSON note to this file once every stream is open (or has failed).
    #[arg(long, value_name = "PATH")]
    pub ready_file: Option<PathBuf>,
}

/// `250ms`, `1.5s`, `2m`, `100us`, or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().map_err(|_| format!("not a duration: {text:?}"))?;
    let seconds = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1e3,
        "us" | "µs" => value / 1e6,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        other => return Err(format!("unknown duration unit {other:?} in {text:?} (use us, ms, s, m, h)")),
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("bad duration {text:?}: {e}"))
}
