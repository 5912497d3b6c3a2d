//! `loadgen`: the load generator of the benchmark harness, and the attack drill (`drill`
//! binary, [`drill`] and [`attack`]) of `scripts/drills`.
//!
//! It drives HTTP/1.1 servers on loopback (the gateway, or the upstream simulator called directly)
//! in four modes: SSE, JSON, WebSocket and idle-hold. It measures time to first byte, time to
//! first SSE event, every inter-event gap and total time per request, counts bytes, events,
//! statuses and errors by kind, and reports them as a table on stderr and a JSON document.
//!
//! Invariants:
//! - It must never be the bottleneck: one task per connection, the connection driven inside that
//!   task, each task owning its statistics (merged once at the end), SSE events counted in place
//!   in the chunks hyper hands over (no per-event allocation), `TCP_NODELAY` on every socket.
//! - It depends on no workspace crate: it measures the product from the outside.
//! - It only talks to the URL it is given; targets are plain `http://` / `ws://` (no TLS).

pub mod attack;
pub mod classify;
pub mod cli;
pub mod config;
pub mod connection;
pub mod drill;
pub mod histogram;
pub mod http;
pub mod idle;
pub mod plan;
pub mod report;
pub mod runner;
pub mod sse;
pub mod stats;
pub mod table;
pub mod usage;
pub mod websocket;

use std::sync::Arc;

use clap::Parser;

pub use crate::config::Config;
pub use crate::report::Report;

/// Runs the configured load and returns its report (the caller prints or writes it).
pub async fn run(config: Arc<Config>) -> anyhow::Result<Report> {
    let outcome = runner::run(config.clone()).await?;
    Ok(Report::new(&config, &outcome))
}

/// Parses command-line style arguments (the first one is the program name).
pub fn config_from_args<I, T>(args: I) -> anyhow::Result<Config>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = cli::Cli::try_parse_from(args)?;
    Config::from_cli(cli)
}
