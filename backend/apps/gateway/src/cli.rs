//! Command-line interface: `switchboard [serve|version] [--config FILE]`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use gateway_host::config::{ConfigSource, load};

/// Exit code for configuration errors (unknown key, invalid value).
pub const EXIT_CONFIG: u8 = 2;
/// Exit code for failures at run time (cannot bind, storage unreachable, …).
pub const EXIT_FAILURE: u8 = 1;

#[derive(Debug, Parser)]
#[command(
    name = "switchboard",
    version,
    about = "Switchboard: a self-hosted gateway that pools ChatGPT/Codex and Grok accounts behind one OpenAI Responses API",
    long_about = None,
    after_help = "Configuration: a YAML file (--config or SWITCHBOARD_CONFIG), then SWITCHBOARD_* environment \
variables, then defaults. See docs/configuration.md."
)]
pub struct Cli {
    /// YAML configuration file.
    #[arg(long, short = 'c', global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the gateway (the default).
    Serve,
    /// Print the version and exit.
    Version,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Version => {
            println!("switchboard {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Command::Serve => {
            let config = match load(&ConfigSource::from_process(cli.config)) {
                Ok(config) => config,
                Err(err) => {
                    eprintln!("switchboard: configuration error: {err}");
                    return ExitCode::from(EXIT_CONFIG);
                }
            };
            run(crate::bootstrap::serve(config))
        }
    }
}

fn run(future: impl Future<Output = Result<(), crate::bootstrap::StartError>>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("switchboard: cannot start the async runtime: {err}");
            return ExitCode::from(EXIT_FAILURE);
        }
    };
    match runtime.block_on(future) {
        Ok(()) => ExitCode::SUCCESS,
        Err(crate::bootstrap::StartError::Config(err)) => {
            eprintln!("switchboard: configuration error: {err}");
            ExitCode::from(EXIT_CONFIG)
        }
        Err(err) => {
            eprintln!("switchboard: {err}");
            ExitCode::from(EXIT_FAILURE)
        }
    }
}
