//! Wiring: builds every part from the configuration and hands them to the host.

use std::sync::Arc;
use std::time::Duration;

use gateway_host::{Config, ConfigError, Health, ReadinessProbe, Shutdown, WorkerRuntime, logging};

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot listen on {addr}: {reason}")]
    Bind { addr: String, reason: String },
}

/// `switchboard serve`: runs until SIGINT/SIGTERM, drains, stops the workers.
pub async fn serve(config: Config) -> Result<(), StartError> {
    logging::init(&config.log)?;
    let shutdown = Shutdown::new(Duration::from_secs(config.server.drain_timeout_seconds));
    let mut workers = WorkerRuntime::new(
        Duration::from_millis(config.workers.restart_backoff_initial_ms),
        Duration::from_millis(config.workers.restart_backoff_max_ms),
    );
    let probes: Vec<Arc<dyn ReadinessProbe>> = Vec::new();
    let health = Health::new(probes, workers.registry(), shutdown.clone());
    let router = health.routes();

    let listener = tokio::net::TcpListener::bind(config.server.listen)
        .await
        .map_err(|e| StartError::Bind { addr: config.server.listen.to_string(), reason: e.to_string() })?;
    let local = listener
        .local_addr()
        .map_err(|e| StartError::Bind { addr: config.server.listen.to_string(), reason: e.to_string() })?;
    tracing::info!(version = env!("CARGO_PKG_VERSION"), url = %format!("http://{local}"), "switchboard listening");

    tokio::spawn(shutdown.clone().listen_for_signals());
    workers.start();
    let outcome = gateway_host::serve(listener, router, shutdown).await;
    tracing::info!(?outcome, "http server stopped");
    let aborted = workers.shutdown(Duration::from_secs(config.workers.shutdown_timeout_seconds)).await;
    tracing::info!(aborted_workers = aborted.len(), "switchboard stopped");
    Ok(())
}
