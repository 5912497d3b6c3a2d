//! The data plane: providers, engine, client routes and the workers that keep them fed
//! (snapshot reconciliation, observation flushing, slot heartbeat, request recovery, retention).

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use axum::Router;
use gateway_api::{ClientApi, Metrics, client_routes, metrics_routes};
use gateway_core::accounting::PriceTable;
use gateway_core::domain::Runner;
use gateway_core::engine::Engine;
use gateway_core::observation::{ObservationSinks, observation_queue};
use gateway_core::provider::{Provider, ProviderSet};
use gateway_core::quota_recorder::QuotaRecorder;
use gateway_core::request_retention::RequestRetention;
use gateway_core::snapshot::{Reconciler, RuntimeSnapshot, SnapshotHolder};
use gateway_host::{ConfigError, FnWorker, Shutdown, WorkerRuntime};
use provider_openai::websocket::PrewarmBudget;
use provider_openai::{InvalidSetting, OpenAiSetting, OpenAiSettings};

use super::accounts::{self, Accounts};
use super::recovery::{self, Recovery};
use super::{StartError, Storage};
use super::{alerts, telemetry};

pub struct DataPlane {
    pub router: Router,
    /// The account lifecycle (providers, refresher, prober, logins) for the admin API.
    pub accounts: Accounts,
    /// The routing snapshot, for the readiness probe.
    pub snapshots: SnapshotHolder,
    /// The held slots and the request recovery (take-over at start, releases at shutdown).
    pub recovery: Recovery,
    /// The alert webhooks and rules for the admin API.
    pub alerts: gateway_api::AlertPorts,
}

pub fn openai_settings(config: &Config) -> OpenAiSettings {
    let openai = &config.providers.openai;
    OpenAiSettings {
        backend_url: openai.backend_url.clone(),
        auth_url: openai.auth_url.clone(),
        client_id: openai.client_id.clone(),
        originator: openai.originator.clone(),
        client_version: openai
            .client_version
            .clone()
            .unwrap_or_else(|| provider_openai::request_profile::PINNED_CODEX_VERSION.to_owned()),
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
        extra_ca_file: openai.extra_ca_file.as_ref().map(std::path::PathBuf::from),
        proxy_addresses: super::outbound::proxy_addresses(config),
        identity_key: identity_key(config),
    }
}

/// Derived from the master key, so every replica sends the same per-account conversation
/// identifiers (decision 0233); a process without one (never in production mode) uses a random
/// key.
fn identity_key(config: &Config) -> provider_openai::identity::IdentityKey {
    match config.secrets.master_key.as_deref() {
        Some(master) => provider_openai::identity::IdentityKey::derive(master.trim().as_bytes()),
        None => provider_openai::identity::IdentityKey::random(),
    }
}

/// Refuses to start with a master key that opens none of the stored credentials: every account
/// would be unusable. Some unreadable ones (a key retired too early) only warn.
fn check_master_key(snapshot: &RuntimeSnapshot) -> Result<(), StartError> {
    let coverage = snapshot.credential_coverage();
    let key_ids = coverage.unreadable_key_ids.iter().map(String::as_str).collect::<Vec<_>>().join(", ");
    if coverage.opens_none() {
        return Err(StartError::Config(gateway_host::ConfigError::invalid(
            "secrets.master_key",
            &format!(
                "it opens none of the {} stored credentials (sealed with key id {key_ids}); configure the key \
                 they were sealed with as secrets.master_key, or list it in secrets.retired_master_keys",
                coverage.stored
            ),
        )));
    }
    if coverage.unreadable > 0 {
        tracing::warn!(
            unreadable = coverage.unreadable,
            stored = coverage.stored,
            key_ids = %key_ids,
            "some stored credentials open with no configured key; those accounts are unusable"
        );
    }
    Ok(())
}

/// The configuration key a provider setting comes from.
pub fn openai_setting_key(setting: OpenAiSetting) -> &'static str {
    match setting {
        OpenAiSetting::BackendUrl => "providers.openai.backend_url",
        OpenAiSetting::AuthUrl => "providers.openai.auth_url",
        OpenAiSetting::AppcastUrl => "providers.openai.appcast_url",
        OpenAiSetting::Originator => "providers.openai.originator",
        OpenAiSetting::ClientVersion | OpenAiSetting::UserAgent => "providers.openai.client_version",
        OpenAiSetting::ExtraCaFile => "providers.openai.extra_ca_file",
    }
}

/// A provider's refusal of a setting as the configuration error naming its key (exit code 2).
pub fn invalid_setting(error: InvalidSetting) -> ConfigError {
    ConfigError::invalid(openai_setting_key(error.setting), &error.reason)
}

/// The providers' own rules over their configuration (the upstream URL guard, header values),
/// checked when the configuration is loaded: a bad upstream URL stops the process at start-up,
/// before storage is opened, instead of giving a gateway whose every upstream call fails.
pub fn check_provider_settings(config: &Config) -> Result<(), ConfigError> {
    let settings = openai_settings(config);
    settings.check().map_err(invalid_setting)?;
    if let Some(url) = &config.providers.openai.appcast_url {
        settings.check_appcast_url(url).map_err(invalid_setting)?;
    }
    default_proxy(config)?;
    super::xai::check_xai_settings(config)
}

/// `providers.egress_proxy`: the proxy of accounts with neither their own nor a group's,
/// checked by the same URL rules as the admin API's (decision 0243; the value never shown).
pub fn default_proxy(config: &Config) -> Result<Option<gateway_core::domain::EgressProxy>, ConfigError> {
    let Some(raw) = config.providers.egress_proxy.as_deref().filter(|raw| !raw.trim().is_empty()) else {
        return Ok(None);
    };
    gateway_admin::egress_proxies::parse_proxy(raw).map(Some).map_err(|_| {
        ConfigError::invalid(
            "providers.egress_proxy",
            "must be an http:// or socks5:// proxy URL with a host and no path",
        )
    })
}

fn register(workers: &mut WorkerRuntime, worker: Arc<dyn gateway_host::Worker>) -> Result<(), StartError> {
    workers.register(worker).map_err(StartError::Wiring)
}

pub async fn build(
    config: &Config,
    storage: &Storage,
    workers: &mut WorkerRuntime,
    shutdown: &Shutdown,
    runner: Runner,
) -> Result<DataPlane, StartError> {
    let store = storage.facts.clone();

    // The snapshot: loaded once before serving, then reconciled by a worker.
    let snapshots = SnapshotHolder::new(RuntimeSnapshot::empty());
    let reconciler = Arc::new(
        Reconciler::new(store.clone(), snapshots.clone(), Duration::from_secs(config.engine.snapshot_reload_seconds))
            .with_default_proxy(default_proxy(config)?),
    );
    reconciler.reload().await.map_err(|e| StartError::Storage(format!("cannot load the routing snapshot: {e}")))?;
    check_master_key(&snapshots.current())?;
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

    // Observations: a bounded queue drained by one flush worker (registered below).
    let (observations, receiver) =
        observation_queue(config.engine.observation_queue_capacity, config.engine.observation_queue_bytes);

    // Metrics: the engine and the refresher record into one recorder, `/metrics` renders it.
    // Alerts: both raise into one queue, delivered to the webhooks (deliveries observed).
    let metrics = telemetry::build(&config.metrics, workers)?;
    let (alert_sink, alert_ports) = alerts::build(config, observations.clone(), store.clone(), workers).await?;
    super::alert_rules::register(config, storage, alert_sink.clone(), workers)?;
    let observe = accounts::Observe { telemetry: metrics.telemetry.clone(), alerts: alert_sink.clone() };

    // Providers and the account lifecycle (refresh, quota probes, catalogs, logins).
    let quota = Arc::new(QuotaRecorder::new(store.clone(), store.clone(), snapshots.clone()));
    let accounts = accounts::build(config, storage, &snapshots, quota.clone(), &observe, workers)?;
    // OpenAI first: the route plan falls back to xAI (while nothing was sent) for the models
    // both serve (`providers.xai.model_map`).
    let providers =
        ProviderSet::new(vec![accounts.openai.clone() as Arc<dyn Provider>, accounts.xai.clone() as Arc<dyn Provider>]);
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

    // Crash recovery: the slot heartbeat and the recovery of rows nobody can finish.
    let lease_ttl = Duration::from_secs(config.engine.lease_ttl_seconds);
    let recovery = recovery::build(storage, runner.clone(), lease_ttl, workers)?;

    // Maintenance of the request log: the retention pass under the current runtime settings.
    let retention = Arc::new(RequestRetention::new(store.clone(), store.clone()));
    register(
        workers,
        FnWorker::periodic("retention", RequestRetention::PERIOD, {
            let snapshots = snapshots.clone();
            move || {
                let (retention, settings) = (retention.clone(), snapshots.current().settings.clone());
                Box::pin(async move {
                    retention.tick(&settings, time::OffsetDateTime::now_utc()).await.map(drop).map_err(Into::into)
                })
            }
        }),
    )?;
    let _ = shutdown;

    let endpoint = config.metrics.enabled.then(|| Metrics {
        observations: observations.stats().clone(),
        exporter: metrics.exporter.clone(),
        snapshots: snapshots.clone(),
        held: recovery.held.clone(),
        token_digest: config.metrics.bearer_token.as_deref().map(|token| Metrics::digest(token.trim())),
        socket_pools: vec![(
            gateway_core::domain::ProviderKind::Openai.as_str(),
            accounts.openai.clone() as Arc<dyn gateway_core::telemetry::SocketPoolSource>,
        )],
    });
    let engine = Arc::new(Engine {
        snapshots: snapshots.clone(),
        providers,
        slots: storage.coordination.clone(),
        held: recovery.held.clone(),
        circuits: storage.coordination.clone(),
        pins: storage.coordination.clone(),
        observations,
        prices: Arc::new(PriceTable::default()),
        affinity_hints: Default::default(),
        fault_memory: Default::default(),
        pools: Default::default(),
        telemetry: metrics.telemetry.clone(),
        alerts: alert_sink,
        settings: config.engine.settings(Some(runner)),
    });
    let mut router = client_routes(ClientApi { engine, body_limit: config.server.request_body_limit_bytes });
    if let Some(endpoint) = endpoint {
        router = router.merge(metrics_routes(endpoint));
    }
    Ok(DataPlane { router, accounts, snapshots, recovery, alerts: alert_ports })
}
