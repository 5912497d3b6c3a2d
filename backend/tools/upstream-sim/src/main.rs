//! `upstream-sim --listen 127.0.0.1:PORT [--config FILE] [--ca-out FILE]`: runs the simulator
//! and prints its base URL on stdout (one line) once it accepts connections. With `--ca-out` it
//! also writes the run's test CA (PEM) to FILE and prints the TLS base URL as a second line.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use tracing_subscriber::EnvFilter;
use upstream_sim::{SimConfig, Simulator};

/// Fake Codex backend, OpenAI OAuth and xAI upstream (see docs/upstream-sim.md).
#[derive(Parser)]
#[command(name = "upstream-sim", version)]
struct Args {
    /// Address to listen on (port 0 picks a free port). Overrides the config file.
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// YAML or JSON config file (accounts, prefixes, settings).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Write the test CA of the TLS listener (PEM) here and print `https://…` as a second line.
    #[arg(long, value_name = "FILE")]
    ca_out: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")))
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    let mut config = match &args.config {
        Some(path) => SimConfig::from_file(path)?,
        None => SimConfig::default(),
    };
    if let Some(listen) = args.listen {
        config.listen = listen;
    }
    let sim = Simulator::start(config).await?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "{}", sim.base_url())?;
    if let Some(path) = &args.ca_out {
        std::fs::write(path, sim.ca_pem())?;
        writeln!(stdout, "{}", sim.tls_base_url())?;
    }
    stdout.flush()?;
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    sim.shutdown().await;
    Ok(())
}
