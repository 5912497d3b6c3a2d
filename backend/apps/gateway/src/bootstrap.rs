//! Wiring: builds every part from the configuration and hands them to the host. The only place
//! that names concrete implementations (PostgreSQL, Redis, SQLite, the in-process coordination,
//! the providers).

mod accounts;
mod admin;
mod alert_rules;
mod alerts;
mod backups;
mod data_plane;
mod outbound;
mod probes;
mod proxy_probe;
mod recovery;
pub mod storage;
mod telemetry;
mod updates;
mod xai;

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use gateway_host::update::HandoverEnd;
use gateway_host::{ConfigError, ConnectionLimits, Health, ReadinessProbe, Server, Shutdown, WorkerRuntime, logging};

pub use accounts::{Accounts, login_egress};
pub use admin::PASSWORD_FILE;
pub use data_plane::{check_provider_settings, default_proxy, invalid_setting, openai_settings};
pub use proxy_probe::TransportProxyProbe;
pub use storage::{Facts, Mode, Role, Storage, open as open_storage, open_postgres};
pub use xai::{invalid_xai_setting, xai_settings};

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot listen on {addr}: {reason}")]
    Bind { addr: String, reason: String },
    #[error("{0}")]
    Storage(String),
    #[error("{0}")]
    Wiring(String),
    /// The process stops so a supervisor starts the installed binary (`update.restart: exit`).
    #[error("exiting with code {0} for the supervisor to start the installed binary")]
    Restart(u8),
}

/// `switchboard migrate`: applies pending migrations and verifies the applied ones.
pub async fn migrate(mut config: Config) -> Result<(), StartError> {
    logging::init(&config.log)?;
    let report = storage::migrate_only(&mut config).await?;
    println!("{report}");
    Ok(())
}

/// `switchboard serve`: runs until SIGINT/SIGTERM, drains, stops the workers.
pub async fn serve(config: Config) -> Result<(), StartError> {
    let outbound = outbound::host_client()?;
    let traces = logging::init_with_traces(&config.log, &config.tracing, &outbound)?;
    let result = run(config, traces.as_ref(), &outbound).await;
    // Flushed last, whatever the outcome: the spans of the last requests are not lost.
    if let Some(traces) = traces {
        traces.shutdown().await;
    }
    outbound.close().await;
    let handover = result?;
    match handover {
        // An update, rollback or restart: the trial, then exec (returns only on failure) or exit.
        Some(handover) => match handover.run().await {
            HandoverEnd::Exit(code) => Err(StartError::Restart(code)),
            HandoverEnd::Failed(reason) => Err(StartError::Wiring(reason)),
        },
        None => Ok(()),
    }
}

/// Runs the server until it stops; returns the update's handover, if one is due.
async fn run(
    mut config: Config,
    traces: Option<&gateway_host::otlp::TraceExport>,
    outbound: &gateway_transport::HttpClient,
) -> Result<Option<gateway_host::update::Handover>, StartError> {
    let shutdown = Shutdown::new(Duration::from_secs(config.server.drain_timeout_seconds));
    let mut workers = WorkerRuntime::new(
        Duration::from_millis(config.workers.restart_backoff_initial_ms),
        Duration::from_millis(config.workers.restart_backoff_max_ms),
    );

    let storage = storage::open(&mut config, Role::Server).await?;
    // Bound first: the default replica name carries the port, unique on this host.
    let listener = gateway_host::serve::bind(config.server.listen)
        .map_err(|e| StartError::Bind { addr: config.server.listen.to_string(), reason: e.to_string() })?;
    let local = listener
        .local_addr()
        .map_err(|e| StartError::Bind { addr: config.server.listen.to_string(), reason: e.to_string() })?;
    let runner = recovery::runner(&config, local)?;
    let updater = updates::updater(&config, &shutdown, outbound.clone())?;
    updater.set_replica(&runner.replica.to_string());
    let data_plane = data_plane::build(&config, &storage, &mut workers, &shutdown, runner).await?;
    let backup_daemon = backups::build(&storage, &mut workers)?;
    let probes: Vec<Arc<dyn ReadinessProbe>> = probes::for_storage(&storage, &data_plane.snapshots);
    let health = Health::new(probes, workers.registry(), shutdown.clone());
    let mut router = health
        .routes()
        .merge(data_plane.router)
        .merge(admin::build(&config, &storage, &data_plane.accounts, data_plane.alerts, &updater, backup_daemon).await?)
        .merge(gateway_api::embedded_spa_routes());
    if config.tracing.access_log {
        router = gateway_api::with_access_log(router);
    }
    // Outermost: the access log's span and every handler's run inside the server span.
    if let Some(traces) = traces {
        router = traces.instrument(router);
    }

    // What a crashed predecessor of this replica left is taken over before the first request.
    let recovery = &data_plane.recovery;
    recovery.take_over_predecessor(storage.coordination.as_ref()).await;
    tracing::info!(
        version = gateway_host::build_info::version(),
        url = %format!("http://{local}"),
        replica = %recovery.runner.replica,
        mode = ?storage.mode,
        boot = %recovery.runner.boot,
        "switchboard listening"
    );

    // The signal listener belongs to this function: it ends with the shutdown token, and is
    // joined (or aborted) before the process stops.
    let mut signals = tokio::task::JoinSet::new();
    signals.spawn(shutdown.clone().listen_for_signals());
    workers.start();
    let limits = ConnectionLimits::from_config(&config.server);
    let outcome =
        Server::new(router, limits).overloaded(gateway_api::overloaded_routes()).serve(listener, shutdown).await;
    tracing::info!(?outcome, "http server stopped");
    let shutdown_timeout = Duration::from_secs(config.workers.shutdown_timeout_seconds);
    if !data_plane.recovery.held.wait_for_releases(shutdown_timeout).await {
        tracing::warn!("slot releases still running at shutdown; those slots expire by their TTL");
    }
    let aborted = workers.shutdown(Duration::from_secs(config.workers.shutdown_timeout_seconds)).await;
    signals.shutdown().await;
    updater.close().await;
    storage.close().await;
    tracing::info!(aborted_workers = aborted.len(), "switchboard stopped");
    Ok(updater.take_handover())
}
