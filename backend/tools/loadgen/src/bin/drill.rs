//! `drill` binary: the attack drill (see `loadgen::drill`). Prints a summary on stderr, writes
//! the JSON report, exits 0 when every threshold held, 3 when one did not, 1 on an error.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use loadgen::drill::{self, DrillArgs, DrillReport};

fn main() -> ExitCode {
    let args = match drill::parse(std::env::args_os()) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("drill: {e:#}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(3),
        Err(e) => {
            eprintln!("drill: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(args: &DrillArgs) -> anyhow::Result<bool> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads.max(1))
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let report = runtime.block_on(drill::run(args))?;
    eprint!("{}", summary(&report));
    if let Some(path) = &args.json {
        let mut text = serde_json::to_string_pretty(&report).context("serializing the report")?;
        text.push('\n');
        if path.as_os_str() == "-" {
            std::io::stdout().lock().write_all(text.as_bytes()).context("writing the report")?;
        } else {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(report.verdict.passed)
}

fn summary(report: &DrillReport) -> String {
    let mut out = String::new();
    for (name, phase) in [("baseline", &report.baseline), ("attack", &report.attack)] {
        out.push_str(&format!(
            "{name:>9}: {} ok, {} errors, p50 {:.1} ms, p99 {:.1} ms, first event p99 {:.1} ms\n",
            phase.requests_ok, phase.errors, phase.total_p50_ms, phase.total_p99_ms, phase.first_event_p99_ms
        ));
    }
    out.push_str(&format!("added p99: {:.1} ms\n", report.added_p99_ms));
    for a in &report.attacks {
        out.push_str(&format!(
            "{:>11}: {} connections, {} closed in time, {} early, {} late, {} never, lifetime p50 {:.0} ms max {:.0} ms, answers {:?}\n",
            a.kind.as_str(),
            a.connections,
            a.closed_in_time,
            a.closed_early,
            a.closed_late,
            a.not_closed + a.connect_failed,
            a.lifetime_ms.p50.unwrap_or_default(),
            a.lifetime_ms.max.unwrap_or_default(),
            a.answers
        ));
        if a.max_bytes_sent > 0 {
            out.push_str(&format!("{:>11}  at most {} body bytes written before the close\n", "", a.max_bytes_sent));
        }
    }
    if let Some(rss) = report.gateway_rss_mb {
        out.push_str(&format!(
            "gateway RSS: {:.1} MB at start, {:.1} MB baseline max, {:.1} MB attack max, {:.1} MB peak\n",
            rss.at_start, rss.baseline_max, rss.attack_max, rss.peak
        ));
    }
    if report.verdict.passed {
        out.push_str("drill passed\n");
    } else {
        for failure in &report.verdict.failures {
            out.push_str(&format!("FAILED: {failure}\n"));
        }
    }
    out
}
