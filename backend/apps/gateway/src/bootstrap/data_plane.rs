//! The data plane: providers, engine, client routes and the workers that keep them fed
//! (snapshot reconciliation, observation flushing, stale recovery, retention).

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use gateway_api::{ClientApi, Metrics, client_routes, metrics_routes};
use gateway_core::accounting::PriceTable;
use gateway_core::engine::{Engine, EngineSettings};
use gateway_core::observation::{ObservationSinks, observation_queue};
use gateway_core::provider::{Provider, ProviderSet};
use gateway_core::quota_recorder::QuotaRecorder;
use gateway_core::snapshot::{Reconciler, RuntimeSnapshot, SnapshotHolder};
use gateway_host::{Config, FnWorker, Shutdown, WorkerRuntime};
use provider_openai::OpenAiSettings;
use provider_openai::websocket::PrewarmBudget;

use super::accounts::{self, Accounts};
use super::{StartError, Storage};

pub struct DataPlane {
    pub router: Router,
    /// The account lifecycle (providers, refresher, prober, logins) for the admin API.
    pub accounts: Accounts,
}

pub fn openai_settings(config: &Config) -> OpenAiSettings {
    let openai = &config.providers.openai;
    OpenAiSettings {
        backend_url: openai.backend_url.clone(),
        auth_url: openai.auth_url.clone(),
        client_id: openai.client_id.clone(),
        originator: openai.originator.clone(),
        client_version: openai.client_version.clone(),
        user_agent: None,
        header_timeout: Duration::from_secs(openai.header_timeout_seconds),
        stream_idle_timeout: Duration::from_secs(openai.stream_idle_timeout_seconds),
        refresh_timeout: Duration::from_secs(30),
        allow_http_loopback: config.providers.allow_http_loopback,
        request_body_limit: config.server.request_body_limit_bytes,
        prewarm_budget: PrewarmBudget {
            per_key_bytes: openai.prewarm_key_budget_bytes,
            total_bytes: openai.prewarm_total_budget_bytes,
        },
    }
}

fn register(workers: &mut WorkerRuntime, worker: Arc<dyn gateway_host::Worker>) -> Result<(), StartError> {
    workers.register(worker).map_err(StartError::Wiring)
}

pub async fn build(
    config: &Config,
    storage: &Storage,
    workers: &mut WorkerRuntime,
    shutdown: &Shutdown,
) -> Result<DataPlane, StartError> {
    let store = storage.postgres.clone();

    // The snapshot: loaded once before serving, then reconciled by a worker.
    let snapshots = SnapshotHolder::new(RuntimeSnapshot::empty());
    let reconciler = Arc::new(Reconciler::new(
        store.clone(),
        snapshots.clone(),
        Duration::from_secs(config.engine.snapshot_reload_seconds),
    ));
    reconciler.reload().await.map_err(|e| StartError::Storage(format!("cannot load the routing snapshot: {e}")))?;
    let poll = Duration::from_millis(config.engine.snapshot_poll_ms);
    register(
        workers,
        FnWorker::periodic("snapshot-reconcile", poll, {
            let reconciler = reconciler.clone();
            move || {
                let reconciler = reconciler.clone();
                Box::pin(async move { reconciler.tick().await.map(|_| ()).map_err(Into::into) })
            }
        }),
    )?;

    // Providers and the account lifecycle (refresh, quota probes, catalogs, logins).
    let quota = Arc::new(QuotaRecorder::new(store.clone(), store.clone(), snapshots.clone()));
    let accounts = accounts::build(config, storage, &snapshots, quota.clone(), workers)?;
    let providers = ProviderSet::new(vec![accounts.openai.clone() as Arc<dyn Provider>]);

    // Observations: a bounded queue drained by one flush worker.
    let (observations, receiver) =
        observation_queue(config.engine.observation_queue_capacity, config.engine.observation_queue_bytes);
    let sinks = ObservationSinks { requests: store.clone(), ops: store.clone(), quota };
    let receiver = std::sync::Mutex::new(Some(receiver));
    let drain_budget = Duration::from_secs(config.workers.shutdown_timeout_seconds.saturating_sub(1).max(1));
    let linger = Duration::from_millis(config.engine.observation_flush_linger_ms);
    register(
        workers,
        FnWorker::daemon("observation-flush", move |ctx| {
            let receiver = receiver.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            let sinks = sinks.clone();
            Box::pin(async move {
                match receiver {
                    Some(receiver) => receiver.run(sinks, 2048, linger, ctx.token().clone(), drain_budget).await,
                    // The receiver is gone only if a previous run panicked mid-flush; nothing to do.
                    None => ctx.stopping().await,
                }
                Ok(())
            })
        }),
    )?;

    // Maintenance of the request log.
    register(
        workers,
        FnWorker::periodic("stale-recovery", Duration::from_secs(30), {
            let store = store.clone();
            move || {
                let store = store.clone();
                Box::pin(async move {
                    use gateway_core::ports::RequestLog;
                    let recovered = store.recover_stale(time::OffsetDateTime::now_utc(), 500).await?;
                    if !recovered.is_empty() {
                        tracing::warn!(count = recovered.len(), "stale running requests recovered as incomplete");
                    }
                    Ok(())
                })
            }
        }),
    )?;
    register(
        workers,
        FnWorker::periodic("retention", Duration::from_secs(300), {
            let store = store.clone();
            let snapshots = snapshots.clone();
            move || {
                let store = store.clone();
                let settings = snapshots.current().settings.clone();
                Box::pin(async move {
                    use gateway_core::ports::{OpsEventLog, RequestLog};
                    let now = time::OffsetDateTime::now_utc();
                    let requests_cutoff = now - time::Duration::days(i64::from(settings.request_retention_days));
                    let ops_cutoff = now - time::Duration::days(i64::from(settings.ops_event_retention_days));
                    // Small batches, repeated while they come back full, bounded per tick.
                    for _ in 0..20 {
                        if store.delete_requests_before(requests_cutoff, 1000).await? < 1000 {
                            break;
                        }
                    }
                    for _ in 0..20 {
                        if store.delete_ops_events_before(ops_cutoff, 1000).await? < 1000 {
                            break;
                        }
                    }
                    Ok(())
                })
            }
        }),
    )?;
    let _ = shutdown;

    let metrics = Metrics { observations: observations.stats().clone() };
    let engine = Arc::new(Engine {
        snapshots,
        providers,
        slots: storage.coordination.clone(),
        pins: storage.coordination.clone(),
        observations,
        prices: Arc::new(PriceTable::default()),
        affinity_hints: Default::default(),
        settings: EngineSettings {
            max_attempts: config.engine.max_attempts,
            lease_ttl: Duration::from_secs(config.engine.lease_ttl_seconds),
            max_interval_wait: Duration::from_millis(config.engine.max_interval_wait_ms),
            header_timeout: Duration::from_secs(config.providers.openai.header_timeout_seconds),
            ..EngineSettings::default()
        },
    });
    let router = client_routes(ClientApi { engine, body_limit: config.server.request_body_limit_bytes })
        .merge(metrics_routes(metrics));
    Ok(DataPlane { router, accounts })
}
