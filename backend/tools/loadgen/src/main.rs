//! `loadgen` binary: parse the command line, run on a runtime of `--threads` workers, print the
//! table on stderr, write the JSON report, exit 3 when a `--fail-on-*` check fails.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use loadgen::cli::Cli;
use loadgen::{Config, Report, table};

fn main() -> ExitCode {
    let config = match Config::from_cli(Cli::parse()) {
        Ok(config) => Arc::new(config),
        Err(e) => {
            eprintln!("loadgen: {e:#}");
            return ExitCode::from(2);
        }
    };
    match run(config) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("loadgen: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(config: Arc<Config>) -> anyhow::Result<u8> {
    let runtime = if config.output.threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(config.output.threads).enable_all().build()
    }
    .context("starting the runtime")?;
    let report = runtime.block_on(loadgen::run(config.clone()))?;
    if !config.output.quiet {
        eprint!("{}", table::render(&report));
    }
    if let Some(path) = &config.output.json {
        write_json(path, &report)?;
    }
    Ok(u8::try_from(report.exit_code(&config.output)).unwrap_or(1))
}

fn write_json(path: &str, report: &Report) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(report).context("serializing the report")?;
    text.push('\n');
    if path == "-" {
        std::io::stdout().lock().write_all(text.as_bytes()).context("writing the report to stdout")?;
    } else {
        std::fs::write(path, text).with_context(|| format!("writing {path}"))?;
    }
    Ok(())
}
