//! The human summary printed on stderr.

use std::fmt::Write;

use crate::report::{Report, Summary};

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_report(&mut out, report);
    out
}

fn write_report(out: &mut String, r: &Report) -> std::fmt::Result {
    let label = r.label.as_deref().map(|l| format!(" [{l}]")).unwrap_or_default();
    writeln!(out, "loadgen {} {} {}{label}", r.mode, r.target.method, r.target.url)?;
    writeln!(
        out,
        "  {} connections, {} requests in {:.3}s: {:.1} ok/s ({:.1} completed/s)",
        r.target.concurrency, r.requests.completed, r.elapsed_s, r.requests.ok_per_s, r.requests.completed_per_s
    )?;
    let e = &r.errors;
    writeln!(
        out,
        "  ok {}  failed {}  (connect {}, reset {}, timeout {}, non_2xx {}, protocol {}, stream_failed {})",
        r.requests.ok, e.total, e.connect, e.reset, e.timeout, e.non_2xx, e.protocol, e.stream_failed
    )?;
    let statuses: Vec<String> = r.status.iter().map(|(code, n)| format!("{code}:{n}")).collect();
    writeln!(out, "  status {}", if statuses.is_empty() { "-".to_owned() } else { statuses.join(" ") })?;
    writeln!(
        out,
        "  bytes {} ({:.0}/req)  events {} ({:.1}/req)  connections opened {}",
        r.bytes.total, r.bytes.per_request, r.events.total, r.events.per_request, r.connections.opened
    )?;
    writeln!(
        out,
        "  {:<12}{:>9}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}",
        "", "count", "mean", "p50", "p90", "p99", "p99.9", "max"
    )?;
    let l = &r.latency_us;
    for (name, s) in [
        ("connect", &l.connect),
        ("ttfb", &l.ttfb),
        ("first_event", &l.first_event),
        ("event_gap", &l.event_gap),
        ("total", &l.total),
    ] {
        write_row(out, name, s)?;
    }
    for h in &r.expect_headers {
        let prefix = h.prefix.as_deref().map(|p| format!(": {p}")).unwrap_or_default();
        writeln!(out, "  expect {}{prefix}: {} violations in {} responses", h.header, h.violations, h.checked)?;
    }
    if let (Some(cpu), Some(share)) = (r.client.cpu_s, r.client.cpu_share) {
        let per_request = r.client.cpu_per_request_us.map(|us| format!(", {us:.1}µs/req")).unwrap_or_default();
        writeln!(out, "  loadgen cpu {cpu:.2}s ({:.0}% of one core{per_request})", share * 100.0)?;
    }
    if let Some(idle) = &r.idle {
        writeln!(
            out,
            "  idle: {} streams, {} opened in {:.2}s, {} open at end of {:.1}s hold, {} ended early, {} failed",
            idle.streams, idle.opened, idle.open_s, idle.open_at_end, idle.hold_s, idle.ended_early, idle.failed
        )?;
    }
    Ok(())
}

fn write_row(out: &mut String, name: &str, s: &Summary) -> std::fmt::Result {
    if s.count == 0 {
        return writeln!(out, "  {name:<12}{:>9}", 0);
    }
    let t = |v: Option<u64>| micros(v.unwrap_or_default() as f64);
    writeln!(
        out,
        "  {name:<12}{:>9}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}",
        s.count,
        micros(s.mean.unwrap_or_default()),
        t(s.p50),
        t(s.p90),
        t(s.p99),
        t(s.p99_9),
        t(s.max)
    )
}

/// 850µs, 12.34ms, 1.234s.
fn micros(us: f64) -> String {
    if us < 1_000.0 {
        format!("{us:.0}µs")
    } else if us < 1_000_000.0 {
        format!("{:.2}ms", us / 1e3)
    } else {
        format!("{:.3}s", us / 1e6)
    }
}
