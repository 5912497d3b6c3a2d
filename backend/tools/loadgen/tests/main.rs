//! Integration tests: small in-process servers on 127.0.0.1:0 over real sockets, and loadgen
//! runs against them configured exactly as on the command line. Assertions are on counts,
//! error kinds and relationships between metrics, never on absolute times that a loaded
//! machine could break (lower bounds that the servers' own sleeps guarantee are fine).

mod attack;
mod cli;
mod drill;
mod errors;
mod histogram;
mod idle;
mod json;
mod report;
mod scanner;
mod schedule;
mod servers;
mod sse;
mod websocket;

use std::sync::Arc;

use loadgen::Report;
use loadgen::report::Summary;

/// Runs loadgen with command-line arguments (without the program name).
pub async fn run(args: &[&str]) -> Report {
    let config = loadgen::config_from_args(std::iter::once("loadgen").chain(args.iter().copied()))
        .expect("test arguments are valid");
    loadgen::run(Arc::new(config)).await.expect("the run completes")
}

/// min ≤ p50 ≤ p90 ≤ p99 ≤ p99.9 ≤ max, and min ≤ mean ≤ max, for a non-empty summary.
pub fn assert_ordered(name: &str, s: &Summary) {
    let v = |x: Option<u64>| x.unwrap_or_else(|| panic!("{name}: a non-empty summary has every value"));
    let (min, p50, p90, p99, p999, max) = (v(s.min), v(s.p50), v(s.p90), v(s.p99), v(s.p99_9), v(s.max));
    assert!(s.count > 0, "{name}: empty");
    assert!(min <= p50 && p50 <= p90 && p90 <= p99 && p99 <= p999 && p999 <= max, "{name}: not ordered: {s:?}");
    let mean = s.mean.unwrap_or_else(|| panic!("{name}: no mean"));
    assert!(min as f64 <= mean && mean <= max as f64, "{name}: mean outside [min, max]: {s:?}");
}

/// Percentile by percentile, `a` ≤ `b` (true when every request's `a` ≤ its `b`).
pub fn assert_dominated(a: &Summary, b: &Summary) {
    let pairs = [(a.min, b.min), (a.p50, b.p50), (a.p90, b.p90), (a.p99, b.p99), (a.max, b.max)];
    for (x, y) in pairs {
        assert!(x <= y, "expected {a:?} <= {b:?} at every percentile");
    }
}
