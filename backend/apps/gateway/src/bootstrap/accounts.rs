//! The account lifecycle: the OpenAI provider with its single-flight refresher, the quota
//! prober, the login use cases, and the workers that keep accounts alive (refresh, quota
//! probes, catalogs, version check).
//!
//! Workers that write shared facts (refresh, quota) run once per period across replicas (a
//! period lease); catalogs and the request profile are per-replica memory, so every replica
//! keeps its own (conditional fetches, cheap).

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use gateway_admin::oauth::OAuthLogins;
use gateway_core::catalog::sync_catalogs;
use gateway_core::catalog::{CatalogBook, CatalogSource};
use gateway_core::coordination::{Leases, PeriodicLeader, ReplicaId, TranscriptStore};
use gateway_core::credential_refresh::{CredentialRefresher, RefreshPorts, RefreshSettings};
use gateway_core::oauth_login::OAuthLogin;
use gateway_core::quota_probe::{QuotaProbe, QuotaProber};
use gateway_core::quota_recorder::QuotaRecorder;
use gateway_core::snapshot::SnapshotHolder;
use gateway_host::{ConfigError, FnWorker, WorkerContext, WorkerRuntime};
use provider_openai::OpenAiProvider;
use provider_xai::XaiProvider;

use super::{StartError, Storage, invalid_setting, invalid_xai_setting, openai_settings, xai_settings};

/// What the admin API and the data plane use of the account lifecycle.
#[derive(Clone)]
pub struct Accounts {
    pub openai: Arc<OpenAiProvider>,
    pub xai: Arc<XaiProvider>,
    /// The one refresh path ("refresh now" in the admin API).
    pub refresher: Arc<CredentialRefresher>,
    /// On-demand quota probes.
    pub prober: Arc<QuotaProber>,
    /// Browser and device logins, re-authorisation.
    pub logins: Arc<OAuthLogins>,
    pub replica: ReplicaId,
}

fn register(workers: &mut WorkerRuntime, worker: Arc<dyn gateway_host::Worker>) -> Result<(), StartError> {
    workers.register(worker).map_err(StartError::Wiring)
}

/// What the account lifecycle reports into: refresh outcomes (metrics) and terminal refresh
/// failures (alerts).
pub struct Observe {
    pub telemetry: gateway_core::telemetry::Telemetry,
    pub alerts: gateway_core::alerts::AlertSink,
}

pub fn build(
    config: &Config,
    storage: &Storage,
    snapshots: &SnapshotHolder,
    quota: Arc<QuotaRecorder>,
    observe: &Observe,
    workers: &mut WorkerRuntime,
) -> Result<Accounts, StartError> {
    let store = storage.facts.clone();
    let leases: Arc<dyn Leases> = storage.coordination.clone();
    let replica = ReplicaId::random();
    let invalid = |key: &str, e: &dyn std::fmt::Display| StartError::Config(ConfigError::invalid(key, &e.to_string()));

    let provider = OpenAiProvider::new(&openai_settings(config), store.clone())
        .map_err(|e| StartError::Config(invalid_setting(e)))?;
    let xai = XaiProvider::new(&xai_settings(config)?, store.clone())
        .map_err(|e| StartError::Config(invalid_xai_setting(e)))?;
    let ports = RefreshPorts { accounts: store.clone(), credentials: store.clone(), leases: leases.clone() };
    let refresher = Arc::new(
        CredentialRefresher::new(
            ports,
            replica.clone(),
            vec![Arc::new(provider.renewer()), Arc::new(xai.renewer())],
            snapshots.clone(),
            RefreshSettings::default(),
        )
        .with_telemetry(observe.telemetry.clone())
        .with_alerts(observe.alerts.clone()),
    );
    let openai = Arc::new(provider.with_refresher(refresher.clone()));
    // Replay continuation keeps its transcripts in the coordination store (PROTOCOL H.3).
    let transcripts: Arc<dyn TranscriptStore> = storage.coordination.clone();
    let xai = Arc::new(xai.with_refresher(refresher.clone()).with_transcripts(transcripts));
    let prober = Arc::new(QuotaProber::new(
        vec![openai.clone() as Arc<dyn QuotaProbe>, xai.clone() as Arc<dyn QuotaProbe>],
        quota,
        storage.coordination.clone(),
        snapshots.clone(),
    ));
    let logins = Arc::new(
        OAuthLogins::new(
            vec![Arc::new(openai.oauth()) as Arc<dyn OAuthLogin>, Arc::new(xai.oauth()) as Arc<dyn OAuthLogin>],
            storage.coordination.clone(),
            store.clone(),
            store.clone(),
        )
        .with_egress(login_egress(config, store.clone())?),
    );

    let providers = &config.providers;
    register(workers, cookie_worker(openai.cookies(), store.clone()))?;
    register(workers, refresh_worker(&refresher, &leases, &replica, providers))?;
    register(workers, quota_worker(&prober, &leases, &replica, providers))?;
    let catalog_period = Duration::from_secs(providers.catalog_refresh_seconds);
    register(workers, catalog_worker("catalog-sync", openai.catalog(), &openai, snapshots, catalog_period))?;
    register(workers, catalog_worker("catalog-sync-xai", xai.catalog(), &xai, snapshots, catalog_period))?;
    if let Some(url) = &providers.openai.appcast_url {
        openai.version_check(url).map_err(|e| invalid("providers.openai.appcast_url", &e))?;
        let period = Duration::from_secs(providers.openai.version_check_period_seconds);
        register(workers, version_worker(&openai, url.clone(), period))?;
    }
    if let Some(check) = xai.version_check() {
        let period = Duration::from_secs(providers.xai.version_check_period_seconds);
        register(workers, grok_version_worker(check, period))?;
    }
    Ok(Accounts { openai, xai, refresher, prober, logins, replica })
}

/// What a login's proxy is chosen from: the groups, the admin SSRF guard, the default proxy.
pub fn login_egress(
    config: &Config,
    groups: Arc<dyn gateway_admin::ports::GroupDirectory>,
) -> Result<gateway_admin::oauth::LoginEgress, StartError> {
    use gateway_admin::url_guard::{UrlGuard, UrlPolicy};
    let policy = UrlPolicy { allow_private: config.admin.allow_private_urls };
    Ok(gateway_admin::oauth::LoginEgress {
        groups,
        guard: Arc::new(UrlGuard::new(Arc::new(gateway_store::dns::SystemResolver), policy)),
        default_proxy: super::default_proxy(config)?,
    })
}

fn refresh_worker(
    refresher: &Arc<CredentialRefresher>,
    leases: &Arc<dyn Leases>,
    replica: &ReplicaId,
    config: &crate::config::ProvidersConfig,
) -> Arc<dyn gateway_host::Worker> {
    let (refresher, leases, replica) = (refresher.clone(), leases.clone(), replica.clone());
    let period = Duration::from_secs(config.refresh_period_seconds);
    let batch = config.refresh_batch;
    FnWorker::daemon("credential-refresh", move |ctx: WorkerContext| {
        let leader = PeriodicLeader::new(leases.clone(), "credential-refresh", period, replica.clone());
        let refresher = refresher.clone();
        Box::pin(async move {
            refresher.run_worker(leader, batch, ctx.token().clone()).await;
            Ok(())
        })
    })
}

fn quota_worker(
    prober: &Arc<QuotaProber>,
    leases: &Arc<dyn Leases>,
    replica: &ReplicaId,
    config: &crate::config::ProvidersConfig,
) -> Arc<dyn gateway_host::Worker> {
    let (prober, leases, replica) = (prober.clone(), leases.clone(), replica.clone());
    let period = Duration::from_secs(config.quota_probe_period_seconds);
    let batch = config.quota_probe_batch as usize;
    FnWorker::daemon("quota-probe", move |ctx: WorkerContext| {
        let mut leader = PeriodicLeader::new(leases.clone(), "quota-probe", period, replica.clone());
        let prober = prober.clone();
        Box::pin(async move {
            loop {
                let wait = match leader.poll().await {
                    Ok(decision) => {
                        if decision.run.is_some() {
                            let report = prober.run_due(period, batch).await;
                            if report.probed > 0 {
                                tracing::info!(?report, "quota probe pass");
                            }
                        }
                        decision.next_in
                    }
                    Err(err) => {
                        tracing::warn!(error = %err, "quota probe period not claimed");
                        Duration::from_secs(5)
                    }
                };
                if !ctx.sleep(wait).await {
                    return Ok(());
                }
            }
        })
    })
}

fn catalog_worker<P: CatalogSource + 'static>(
    name: &'static str,
    book: &Arc<CatalogBook>,
    source: &Arc<P>,
    snapshots: &SnapshotHolder,
    period: Duration,
) -> Arc<dyn gateway_host::Worker> {
    let (book, source, snapshots) = (book.clone(), source.clone(), snapshots.clone());
    FnWorker::daemon(name, move |ctx: WorkerContext| {
        let (book, source, snapshots) = (book.clone(), source.clone(), snapshots.clone());
        Box::pin(async move {
            loop {
                book.take_resync();
                let report = sync_catalogs(&book, source.as_ref(), &snapshots.current()).await;
                if !report.updated.is_empty() || !report.failed.is_empty() {
                    tracing::info!(?report, "model catalogs synced");
                }
                tokio::select! {
                    () = ctx.stopping() => return Ok(()),
                    () = tokio::time::sleep(period) => {}
                    () = book.resync_requested() => {}
                }
            }
        })
    })
}

/// The Grok CLI version check: every period, and at once when the upstream refused the
/// version (426).
fn grok_version_worker(
    check: provider_xai::version_check::VersionCheck,
    period: Duration,
) -> Arc<dyn gateway_host::Worker> {
    let check = Arc::new(check);
    FnWorker::daemon("version-check-xai", move |ctx: WorkerContext| {
        let check = check.clone();
        Box::pin(async move {
            loop {
                match check.check().await {
                    Ok(outcome) => tracing::debug!(?outcome, "Grok CLI version check"),
                    Err(err) => {
                        tracing::warn!(error = %err, "Grok CLI version check failed; keeping the current version")
                    }
                }
                tokio::select! {
                    () = ctx.stopping() => return Ok(()),
                    () = tokio::time::sleep(period) => {}
                    () = check.version().check_requested() => {}
                }
            }
        })
    })
}

fn version_worker(openai: &Arc<OpenAiProvider>, url: String, period: Duration) -> Arc<dyn gateway_host::Worker> {
    let openai = openai.clone();
    FnWorker::daemon("version-check", move |ctx: WorkerContext| {
        let (openai, url) = (openai.clone(), url.clone());
        Box::pin(async move {
            let check = openai.version_check(&url)?;
            loop {
                match check.check().await {
                    Ok(outcome) => tracing::debug!(?outcome, "version check"),
                    Err(err) => tracing::warn!(error = %err, "version check failed; keeping the current profile"),
                }
                if !ctx.sleep(period).await {
                    return Ok(());
                }
            }
        })
    })
}

/// How often changed cookie jars are stored.
const COOKIE_JAR_PERIOD: Duration = Duration::from_secs(2);

/// Stores the accounts' cookie jars as they change (loading the stored ones on its first pass).
fn cookie_worker(
    cookies: Arc<provider_openai::cookie_jars::AccountCookies>,
    store: Arc<dyn gateway_core::ports::CookieJarStore>,
) -> Arc<dyn gateway_host::Worker> {
    let loaded = Arc::new(std::sync::atomic::AtomicBool::new(false));
    FnWorker::periodic("cookie-jars", COOKIE_JAR_PERIOD, move || {
        let (cookies, store, loaded) = (cookies.clone(), store.clone(), loaded.clone());
        Box::pin(async move {
            provider_openai::cookie_jars::persist(&cookies, store.as_ref(), &loaded).await.map_err(Into::into)
        })
    })
}
