//! Command-line interface: `switchboard [COMMAND] [--config FILE]` (`serve` by default).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use gateway_core::domain::{ClientKeyLimits, NanoUsd};
use gateway_host::config::{ConfigSource, load_with};

use crate::commands;

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
    /// Apply pending database migrations, verify the applied ones, and exit.
    Migrate,
    /// Manage upstream accounts.
    #[command(subcommand)]
    Account(AccountCommand),
    /// Manage account groups (their egress proxy).
    #[command(subcommand)]
    Group(GroupCommand),
    /// Egress proxies not stored yet (probe one before setting it).
    #[command(subcommand)]
    Proxy(TopProxyCommand),
    /// Manage client API keys.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Show or change the runtime settings (strategy, concurrency, aliases, …).
    #[command(subcommand)]
    Settings(SettingsCommand),
    /// Print a new random master key (`ID:BASE64`) for `secrets.master_key`.
    MasterKey {
        /// The key's id (`[A-Za-z0-9_.-]`, at most 64); default `k` + today's date + a random
        /// suffix, so a key made on the day of a rotation differs from the one it replaces.
        #[arg(long)]
        id: Option<String>,
    },
    /// Secrets at rest (master-key rotation).
    #[command(subcommand)]
    Secrets(SecretsCommand),
    /// Administrators of the admin API.
    #[command(subcommand)]
    Admin(AdminCommand),
    /// Exit 0 when this gateway answers `/readyz` with 200 (ready or degraded), 1 otherwise;
    /// the container image's HEALTHCHECK. Uses the configured `server.listen` (an unspecified
    /// address such as 0.0.0.0 is asked on loopback).
    Healthcheck {
        /// Longest wait for the answer.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=60))]
        timeout_seconds: u64,
    },
    /// Print where this configuration's instance lives (mode, URL, data directory, admin
    /// password file, database, master key file) as `name=value` lines; opens nothing.
    Instance,
    /// Copy this embedded install (SQLite) into a new, empty PostgreSQL database, comparing the
    /// rows of every table; the server must be stopped. Then run with `database.url` set to it,
    /// `redis.url`, and the same master key (docs/deployment.md, "Moving up").
    MigrateStore {
        /// The target database, `postgres://…` (migrated here; must hold no data yet).
        #[arg(long = "to", value_name = "URL")]
        to: String,
    },
    /// Backups (docs/backups.md).
    #[command(subcommand)]
    Backup(BackupCommand),
    /// Print the version and exit.
    Version,
}

#[derive(Debug, Subcommand)]
pub enum BackupCommand {
    /// Restore backup ID (from the admin API's list) into an empty database: checks the
    /// object's SHA-256, stops on the first error, compares row counts, checks migrations.
    Restore {
        id: i64,
        /// `postgres://…` (an existing, empty database) or the path of a new SQLite file.
        #[arg(long = "into", value_name = "DEST")]
        into: String,
        /// Restore even though DEST already holds tables (or the file exists).
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum AccountCommand {
    /// Import credentials: a Codex auth.json, an export bundle, CLIProxyAPI files, or lines of
    /// refresh/access tokens (`--provider openai`); a Grok CLI `~/.grok/auth.json`, an export
    /// bundle or token objects (`--provider xai`). FILE `-` reads standard input.
    Import {
        file: String,
        /// `openai` (default) or `xai`.
        #[arg(long, default_value = "openai")]
        provider: String,
    },
    /// List accounts with their derived state.
    List,
    /// Change an account's scheduling facts.
    Update {
        id: i64,
        #[arg(long, conflicts_with = "disable")]
        enable: bool,
        #[arg(long)]
        disable: bool,
        /// Selection weight, 1 to 100.
        #[arg(long)]
        weight: Option<u8>,
        /// Concurrency cap of this account.
        #[arg(long, conflicts_with = "cap_default")]
        cap: Option<u32>,
        /// Use the runtime default concurrency.
        #[arg(long)]
        cap_default: bool,
    },
    /// Log in to a ChatGPT account (OAuth): prints an address to open, then reads the address
    /// the browser lands on from standard input. `--device` uses a device code instead.
    Login {
        /// Device-code login: prints a code to enter at the shown address, then waits.
        #[arg(long)]
        device: bool,
        /// Re-authorise this existing account (id from `account list`) instead of adding one.
        #[arg(long = "account", value_name = "ID")]
        account: Option<i64>,
        /// Device login: seconds between polls (default: what the upstream asks for).
        #[arg(long, value_name = "SECONDS")]
        interval: Option<u64>,
        /// Log in through this egress proxy (`-` reads it from standard input); the new
        /// account keeps it as its own. Default: the default proxy; a re-authorisation uses
        /// the proxy that applies to its account.
        #[arg(long, value_name = "URL", conflicts_with_all = ["group", "account"])]
        egress_proxy: Option<String>,
        /// Log in through this group's egress proxy; the new account keeps it as its own.
        #[arg(long, value_name = "ID", conflicts_with = "account")]
        group: Option<i64>,
    },
    /// The account's own egress proxy (it wins over its groups' and the default), and a probe
    /// of the proxy that applies to it.
    #[command(subcommand)]
    Proxy(AccountProxyCommand),
    /// Write every credential as an export bundle (live tokens: needs the confirmation flag).
    Export {
        #[arg(long = "yes-export-secrets")]
        confirmed: bool,
        /// Output file (created with mode 0600); standard output when omitted.
        file: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum GroupCommand {
    /// The group's egress proxy (members without their own use it).
    #[command(subcommand)]
    Proxy(ProxyCommand),
}

/// `proxy set ID URL` / `proxy clear ID` (audited like the admin API).
#[derive(Debug, Subcommand)]
pub enum ProxyCommand {
    /// Set the egress proxy: `http://[user:pass@]host[:port]` (HTTP CONNECT) or
    /// `socks5://[user:pass@]host[:port]`; `-` reads it from standard input (keeps a password
    /// out of the process list and the shell history).
    Set { id: i64, url: String },
    /// Clear the egress proxy.
    Clear { id: i64 },
}

/// `account proxy set|clear|check ID`.
#[derive(Debug, Subcommand)]
pub enum AccountProxyCommand {
    #[command(flatten)]
    Edit(ProxyCommand),
    /// Probe the proxy that applies to the account (its own, its group's or the default): a
    /// tunnel to its provider's upstream origin and the TLS handshake, no request sent. Prints
    /// each phase and its time; exits 1 when the proxy is unreachable.
    Check { id: i64 },
}

/// `proxy check URL`. `Debug` never shows the URL (it may hold a password).
#[derive(Subcommand)]
pub enum TopProxyCommand {
    /// Probe a proxy URL before setting it (the same URL and address checks): a tunnel to the
    /// provider's upstream origin and the TLS handshake, no request sent. `-` reads the URL
    /// from standard input. Prints each phase and its time; exits 1 when unreachable.
    Check {
        url: String,
        /// Whose upstream origin to tunnel to: `openai` (default) or `xai`.
        #[arg(long, default_value = "openai")]
        provider: String,
    },
}

impl std::fmt::Debug for TopProxyCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Check { provider, .. } => write!(f, "Check {{ url: [REDACTED], provider: {provider:?} }}"),
        }
    }
}

impl ProxyCommand {
    fn into_parts(self) -> (i64, Option<String>) {
        match self {
            Self::Set { id, url } => (id, Some(url)),
            Self::Clear { id } => (id, None),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Set a new password for an admin (username, case-insensitive) and end all their
    /// sessions. Prints a generated password once on standard output, or reads the new one
    /// from the first line of standard input with --stdin. Audited like a password change.
    ResetPassword {
        username: String,
        /// Read the new password from standard input instead of generating one.
        #[arg(long)]
        stdin: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum SecretsCommand {
    /// Re-seal every sealed secret (account credentials, TOTP secrets, backup storage secrets)
    /// under `secrets.master_key`; run after making a new key current and retiring the old one.
    /// Idempotent and safe to interrupt (each batch is committed).
    Reseal {
        /// Rows per committed transaction.
        #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        batch: u32,
    },
}

#[derive(Debug, Subcommand)]
pub enum SettingsCommand {
    /// Print the runtime settings as JSON.
    Show,
    /// Change settings: `name=value` pairs, names as `show` prints them.
    Set {
        #[arg(required = true)]
        assignments: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Create a client key and print it once on standard output.
    Create {
        name: String,
        /// Concurrent requests allowed.
        #[arg(long)]
        concurrency: Option<u32>,
        /// Requests per minute allowed.
        #[arg(long)]
        rpm: Option<u32>,
        /// Tokens the key may use per UTC day.
        #[arg(long)]
        daily_tokens: Option<u64>,
        /// Tokens the key may use per UTC month.
        #[arg(long)]
        monthly_tokens: Option<u64>,
        /// US dollars the key may spend per UTC day (e.g. 2.50).
        #[arg(long, value_parser = parse_usd)]
        daily_usd: Option<NanoUsd>,
        /// US dollars the key may spend per UTC month.
        #[arg(long, value_parser = parse_usd)]
        monthly_usd: Option<NanoUsd>,
        /// Comma-separated model allowlist.
        #[arg(long, value_delimiter = ',')]
        models: Option<Vec<String>>,
        /// Restrict to these account groups (repeatable group ids).
        #[arg(long = "group")]
        groups: Vec<i64>,
        /// Expire after this many days.
        #[arg(long)]
        expires_days: Option<u32>,
        /// Create this many keys (NAME-1 … NAME-N), printed one per line.
        #[arg(long, default_value_t = 1)]
        count: u32,
    },
}

pub fn main() -> ExitCode {
    // One TLS crypto provider for the whole process (gateway-transport, sqlx and aws-sdk-s3 use rustls).
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    if let Some(refused) = gateway_host::build_info::init_from_env() {
        eprintln!(
            "switchboard: ignoring {}: {refused:?} is not a version (MAJOR.MINOR.PATCH)",
            gateway_host::build_info::VERSION_OVERRIDE_ENV
        );
    }
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Version => {
            println!("switchboard {}", gateway_host::build_info::version());
            ExitCode::SUCCESS
        }
        Command::MasterKey { id } => {
            match gateway_store::crypto::MasterKey::generate(&id.unwrap_or_else(default_key_id)) {
                Ok(key) => {
                    println!("{}", secrecy::ExposeSecret::expose_secret(&key.to_config_value()));
                    ExitCode::SUCCESS
                }
                Err(err) => {
                    eprintln!("switchboard: cannot generate a key: {err}");
                    ExitCode::from(EXIT_FAILURE)
                }
            }
        }
        command => {
            let source = ConfigSource::from_process(cli.config);
            let config = match load_with(&source, crate::bootstrap::check_provider_settings) {
                Ok(config) => config,
                Err(err) => {
                    eprintln!("switchboard: configuration error: {err}");
                    return ExitCode::from(EXIT_CONFIG);
                }
            };
            match command {
                Command::Migrate => run(crate::bootstrap::migrate(config)),
                Command::Instance => run(async move { commands::instance::describe(&config) }),
                Command::MigrateStore { to } => run(commands::migrate_store::run(config, to)),
                Command::Backup(BackupCommand::Restore { id, into, yes }) => {
                    run(commands::backup::restore(config, id, into, yes))
                }
                Command::Healthcheck { timeout_seconds } => {
                    run(commands::healthcheck::check(config, std::time::Duration::from_secs(timeout_seconds)))
                }
                Command::Secrets(SecretsCommand::Reseal { batch }) => run(commands::secrets::reseal(config, batch)),
                Command::Admin(AdminCommand::ResetPassword { username, stdin }) => {
                    run(commands::admin_users::reset(config, username, stdin))
                }
                Command::Account(AccountCommand::Import { file, provider }) => {
                    run(commands::account_import(config, file, provider))
                }
                Command::Account(AccountCommand::List) => run(commands::account_list(config)),
                Command::Account(AccountCommand::Update { id, enable, disable, weight, cap, cap_default }) => {
                    let enabled = if enable {
                        Some(true)
                    } else if disable {
                        Some(false)
                    } else {
                        None
                    };
                    let update = commands::SchedulingUpdate { enabled, weight, cap, cap_default };
                    run(commands::account_update(config, id, update))
                }
                Command::Account(AccountCommand::Login { device, account, interval, egress_proxy, group }) => {
                    let options = commands::LoginOptions { device, account, interval, egress_proxy, group };
                    run(commands::account_login(config, options))
                }
                Command::Account(AccountCommand::Proxy(AccountProxyCommand::Edit(proxy))) => {
                    let (id, url) = proxy.into_parts();
                    run(commands::proxies::set(config, commands::proxies::Owner::Account(id), url))
                }
                Command::Account(AccountCommand::Proxy(AccountProxyCommand::Check { id })) => {
                    run(commands::proxy_check::check_account(config, id))
                }
                Command::Proxy(TopProxyCommand::Check { url, provider }) => {
                    run(commands::proxy_check::check_url(config, url, provider))
                }
                Command::Group(GroupCommand::Proxy(proxy)) => {
                    let (id, url) = proxy.into_parts();
                    run(commands::proxies::set(config, commands::proxies::Owner::Group(id), url))
                }
                Command::Account(AccountCommand::Export { confirmed, file }) => {
                    run(commands::account_export(config, confirmed, file))
                }
                Command::Settings(SettingsCommand::Show) => run(commands::settings_show(config)),
                Command::Settings(SettingsCommand::Set { assignments }) => {
                    run(commands::settings_set(config, assignments))
                }
                Command::Key(KeyCommand::Create {
                    name,
                    concurrency,
                    rpm,
                    daily_tokens,
                    monthly_tokens,
                    daily_usd,
                    monthly_usd,
                    models,
                    groups,
                    expires_days,
                    count,
                }) => {
                    let options = commands::KeyOptions {
                        name,
                        limits: ClientKeyLimits {
                            max_concurrency: concurrency,
                            requests_per_minute: rpm,
                            daily_token_budget: daily_tokens,
                            monthly_token_budget: monthly_tokens,
                            daily_cost_budget: daily_usd,
                            monthly_cost_budget: monthly_usd,
                        },
                        models,
                        groups,
                        expires_days,
                        count,
                    };
                    run(commands::key_create(config, options))
                }
                _ => run_on(config.server.worker_threads, crate::bootstrap::serve(config)),
            }
        }
    }
}

/// A positive amount of US dollars with at most nine decimals (`2`, `0.25`) as nano-USD.
pub fn parse_usd(text: &str) -> Result<NanoUsd, String> {
    let invalid = || format!("{text:?} is not an amount of US dollars like 2.50");
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 9 {
        return Err(invalid());
    }
    let whole: i64 = whole.parse().map_err(|_| invalid())?;
    let fraction: i64 = format!("{fraction:0<9}").parse().map_err(|_| invalid())?;
    let nano = whole.checked_mul(NanoUsd::PER_USD).and_then(|w| w.checked_add(fraction)).ok_or_else(invalid)?;
    if nano == 0 {
        return Err(format!("{text:?}: a budget must be more than zero"));
    }
    Ok(NanoUsd(nano))
}

/// Key ids name the key in each ciphertext: `k` + the creation date + 4 random hex digits (two
/// keys made the same day must differ: a keyring refuses a duplicate id).
pub(crate) fn default_key_id() -> String {
    let now = time::OffsetDateTime::now_utc();
    let suffix: u16 = rand::random();
    format!("k{:04}{:02}{:02}-{suffix:04x}", now.year(), u8::from(now.month()), now.day())
}

fn run(future: impl Future<Output = Result<(), crate::bootstrap::StartError>>) -> ExitCode {
    run_on(0, future)
}

/// Runs `future` on a multi-threaded runtime with `workers` threads (0: one per CPU).
fn run_on(workers: usize, future: impl Future<Output = Result<(), crate::bootstrap::StartError>>) -> ExitCode {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if workers > 0 {
        builder.worker_threads(workers);
    }
    let runtime = match builder.enable_all().build() {
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
        Err(crate::bootstrap::StartError::Restart(code)) => ExitCode::from(code),
        Err(err) => {
            eprintln!("switchboard: {err}");
            ExitCode::from(EXIT_FAILURE)
        }
    }
}
