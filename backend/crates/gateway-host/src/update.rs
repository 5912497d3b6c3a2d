//! Self-update: find the newest release at `update.release_url`, pick the archive for this
//! OS/arch, verify it (SHA-256 from `SHA256SUMS`, and its Ed25519 signature when
//! `update.public_key` is set), swap the binary atomically keeping `<binary>.previous`, and
//! restart into it through a health-checked trial that rolls back on failure
//! ([`handover`]). Refused in a container (the image is replaced instead) and when already up
//! to date. Manual rollback and restart take the same road.
//!
//! The [`Updater`] is shared by the admin API (check, start, progress) and the composition root
//! (which takes the [`Handover`] after the HTTP drain and audits outcomes through
//! [`UpdateAudit`]). Every task it spawns belongs to its `TaskTracker`.

pub mod archive;
pub mod fetch;
pub mod handover;
pub mod host;
pub mod install;
mod job;
pub mod progress;
pub mod release;
pub mod state;
pub mod verify;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::watch;
use tokio_util::task::TaskTracker;

use crate::Shutdown;
use crate::config::{RestartMode, UpdateConfig};

pub use handover::{Handover, HandoverEnd, RESTART_EXIT_CODE};
pub use host::HostFacts;
pub use install::Installation;
pub use progress::{Phase, Progress, ProgressEvent};
pub use state::{OutcomeResult, Requester, StateFile, UpdateAction, UpdateOutcome, UpdateState};

/// Why an update (or rollback, or restart) cannot run, or failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UpdateError {
    /// Not possible here (container, no release source, platform, install location).
    #[error("{0}")]
    Unavailable(String),
    #[error("already up to date: running {current}, the newest release is {latest}")]
    UpToDate { current: String, latest: String },
    #[error("an update, rollback or restart is already running")]
    InProgress,
    #[error("there is no previous version to roll back to")]
    NoPrevious,
    /// The release source did not answer, or answered something that is not a release.
    #[error("release source: {0}")]
    Source(String),
    /// What was downloaded is not what the release promised.
    #[error("verification failed: {0}")]
    Verification(String),
    /// The files could not be written or swapped.
    #[error("install failed: {0}")]
    Install(String),
}

impl UpdateError {
    /// The stable code the admin API answers with.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unavailable(_) => "update_unavailable",
            Self::UpToDate { .. } => "already_up_to_date",
            Self::InProgress => "update_in_progress",
            Self::NoPrevious => "no_previous_version",
            Self::Source(_) => "release_source_failed",
            Self::Verification(_) => "update_verification_failed",
            Self::Install(_) => "update_install_failed",
        }
    }
}

/// Writes the audit row of an outcome (implemented by the composition root over the admin
/// unit of work). `Err` is logged and retried at the next start.
#[async_trait]
pub trait UpdateAudit: Send + Sync {
    async fn record(&self, outcome: &UpdateOutcome) -> Result<(), String>;
}

/// What the newest release offers this host.
#[derive(Debug, Clone)]
pub struct ReleaseCheck {
    pub current_version: String,
    pub latest_version: String,
    pub platform: String,
    pub asset: String,
    pub asset_size: Option<u64>,
    pub signed: bool,
    pub update_available: bool,
}

/// The self-update of this process.
#[derive(Clone)]
pub struct Updater {
    inner: Arc<Inner>,
}

struct Inner {
    source: Option<fetch::ReleaseSource>,
    public_key: Option<[u8; 32]>,
    allow_in_container: bool,
    restart: RestartMode,
    health_timeout: Duration,
    host: HostFacts,
    state: StateFile,
    board: progress::ProgressBoard,
    busy: AtomicBool,
    handover: Mutex<Option<Handover>>,
    trial_replica: Mutex<String>,
    audit: Mutex<Option<Arc<dyn UpdateAudit>>>,
    shutdown: Shutdown,
    tasks: TaskTracker,
}

impl Updater {
    /// `data_dir` holds `update-state.json`; `shutdown` is triggered to restart; release files
    /// are fetched with `http`, the process's outbound client (decision 0341).
    pub fn new(
        config: &UpdateConfig,
        data_dir: &Path,
        shutdown: Shutdown,
        host: HostFacts,
        http: gateway_transport::HttpClient,
    ) -> Result<Self, UpdateError> {
        let source = match &config.release_url {
            Some(raw) => {
                let url = config.release_url_parsed(raw).map_err(|e| UpdateError::Unavailable(e.to_string()))?;
                Some(fetch::ReleaseSource::new(url, http))
            }
            None => None,
        };
        Ok(Self {
            inner: Arc::new(Inner {
                source,
                public_key: config.public_key_bytes(),
                allow_in_container: config.allow_in_container,
                restart: config.restart,
                health_timeout: Duration::from_secs(config.health_timeout_seconds),
                host,
                state: StateFile::in_dir(data_dir),
                board: progress::ProgressBoard::default(),
                busy: AtomicBool::new(false),
                handover: Mutex::new(None),
                trial_replica: Mutex::new("update-trial".to_owned()),
                audit: Mutex::new(None),
                shutdown,
                tasks: TaskTracker::new(),
            }),
        })
    }

    /// The replica name the trial of a new version uses: this replica's name + `.update-trial`.
    pub fn set_replica(&self, replica: &str) {
        let name: String = format!("{replica}.update-trial").chars().take(200).collect();
        *lock(&self.inner.trial_replica) = name;
    }

    pub fn set_audit(&self, audit: Arc<dyn UpdateAudit>) {
        *lock(&self.inner.audit) = Some(audit);
    }

    pub fn current_version(&self) -> &'static str {
        crate::build_info::version()
    }

    pub fn platform(&self) -> &str {
        &self.inner.host.platform
    }

    /// The release manifest URL, when one is configured (no query, no credentials).
    pub fn release_source(&self) -> Option<String> {
        self.inner.source.as_ref().map(fetch::ReleaseSource::shown)
    }

    pub fn signature_required(&self) -> bool {
        self.inner.public_key.is_some()
    }

    /// Whether this process can update itself from the release source; `Err` says why not.
    pub fn availability(&self) -> Result<Installation, UpdateError> {
        let installation = self.installation()?;
        if self.inner.source.is_none() {
            return Err(UpdateError::Unavailable("no release source is configured (update.release_url)".into()));
        }
        Ok(installation)
    }

    /// Whether this process may replace its own binary (not in a container, a known and
    /// writable location): what updates and rollbacks need.
    fn installation(&self) -> Result<Installation, UpdateError> {
        let host = &self.inner.host;
        if let Some(container) = host.container.as_ref().filter(|_| !self.inner.allow_in_container) {
            return Err(UpdateError::Unavailable(format!(
                "running in {container}: update the image instead (docker compose pull && docker compose up -d); \
                 update.allow_in_container is for a binary that is not part of the image"
            )));
        }
        let binary = host.binary.clone().map_err(UpdateError::Unavailable)?;
        let installation = Installation::new(binary);
        installation.check_writable().map_err(UpdateError::Unavailable)?;
        Ok(installation)
    }

    /// The version `<binary>.previous` holds, when there is one to roll back to.
    pub fn previous_version(&self) -> Option<String> {
        let binary = self.inner.host.binary.as_ref().ok()?;
        if !Installation::new(binary.clone()).has_previous() {
            return None;
        }
        Some(self.inner.state.load().previous_version.unwrap_or_else(|| "unknown".to_owned()))
    }

    /// What the last update, rollback or restart did (from the state file).
    pub fn last_outcome(&self) -> Option<UpdateOutcome> {
        self.inner.state.load().last
    }

    pub fn progress(&self) -> Progress {
        self.inner.board.current()
    }

    pub fn subscribe(&self) -> watch::Receiver<Progress> {
        self.inner.board.subscribe()
    }

    /// Asks the release source what the newest release offers this platform.
    pub async fn check(&self) -> Result<ReleaseCheck, UpdateError> {
        self.fetch_release().await.map(|(check, _)| check)
    }

    async fn fetch_release(&self) -> Result<(ReleaseCheck, release::ReleaseManifest), UpdateError> {
        let source =
            self.inner.source.as_ref().ok_or_else(|| {
                UpdateError::Unavailable("no release source is configured (update.release_url)".into())
            })?;
        let manifest = release::ReleaseManifest::parse(&source.manifest().await?)?;
        let asset = manifest.asset_for(&self.inner.host.platform)?;
        let current = self.current_version().to_owned();
        let check = ReleaseCheck {
            update_available: release::is_newer(&manifest.version, &current),
            current_version: current,
            latest_version: manifest.version.clone(),
            platform: self.inner.host.platform.clone(),
            asset: asset.name.clone(),
            asset_size: asset.size,
            signed: manifest.signature.is_some(),
        };
        Ok((check, manifest))
    }

    /// Starts updating to the newest release; returns what it updates to. The download,
    /// verification and swap run in the background (progress on [`subscribe`](Self::subscribe));
    /// on success the process drains and restarts.
    pub async fn start_update(&self, by: Requester) -> Result<ReleaseCheck, UpdateError> {
        let installation = self.availability()?;
        let _claim = self.claim()?;
        self.inner.board.begin(UpdateAction::Update, None);
        self.inner.board.push(Phase::Checking, "checking the release source");
        let (check, manifest) = match self.fetch_release().await {
            Ok((check, manifest)) if check.update_available => (check, manifest),
            Ok((check, _)) => {
                self.inner.board.push(Phase::Idle, "already up to date");
                return Err(UpdateError::UpToDate { current: check.current_version, latest: check.latest_version });
            }
            Err(e) => {
                self.inner.board.push(Phase::Failed, e.to_string());
                return Err(e);
            }
        };
        let outcome = UpdateOutcome::new(
            UpdateAction::Update,
            &check.current_version,
            Some(&check.latest_version),
            OutcomeResult::Pending,
            by,
        );
        self.inner
            .board
            .push(Phase::Checking, format!("updating {} -> {}", check.current_version, check.latest_version));
        let run = job::UpdateJob { updater: self.clone(), installation, check: check.clone(), manifest, outcome };
        _claim.keep();
        self.inner.tasks.spawn(run.run());
        Ok(check)
    }

    /// Puts `<binary>.previous` back (keeping the current one as the new previous) and restarts
    /// through the same health-checked trial.
    pub fn start_rollback(&self, by: Requester) -> Result<String, UpdateError> {
        let installation = self.installation()?;
        let target = self.previous_version().ok_or(UpdateError::NoPrevious)?;
        let claim = self.claim()?;
        let current = self.current_version();
        installation
            .exchange()
            .map_err(|e| UpdateError::Install(format!("cannot swap the previous binary in: {e}")))?;
        self.inner.board.begin(UpdateAction::Rollback, Some(&target));
        let outcome = UpdateOutcome::new(UpdateAction::Rollback, current, Some(&target), OutcomeResult::Pending, by);
        self.inner.state.update(|state| {
            state.previous_version = Some(current.to_owned());
            state.last = Some(outcome);
        });
        let expected = (target != "unknown").then(|| target.clone());
        self.hand_over(installation, UpdateAction::Rollback, true, expected);
        claim.keep();
        Ok(target)
    }

    /// Drains and restarts the installed binary (no trial).
    pub fn start_restart(&self, by: Requester) -> Result<(), UpdateError> {
        let binary = self.inner.host.binary.clone().map_err(UpdateError::Unavailable)?;
        let claim = self.claim()?;
        let current = self.current_version();
        self.inner.board.begin(UpdateAction::Restart, Some(current));
        let mut outcome =
            UpdateOutcome::new(UpdateAction::Restart, current, Some(current), OutcomeResult::Restarted, by);
        outcome.audited = true;
        self.inner.state.update(|state| state.last = Some(outcome));
        self.hand_over(Installation::new(binary), UpdateAction::Restart, false, None);
        claim.keep();
        Ok(())
    }

    /// The hand-over the composition root runs after the drain, when a restart was asked for.
    pub fn take_handover(&self) -> Option<Handover> {
        lock(&self.inner.handover).take()
    }

    /// Writes the audit row of an outcome that is known but not yet audited (the previous
    /// process's update, finished by this one's start).
    pub async fn audit_pending_outcome(&self) {
        let Some(outcome) = self.last_outcome() else { return };
        if outcome.audited || outcome.result == OutcomeResult::Pending {
            return;
        }
        self.audit(outcome).await;
    }

    /// Stops taking new work and waits for the running job (it stops on the shutdown signal).
    pub async fn close(&self) {
        self.inner.tasks.close();
        self.inner.tasks.wait().await;
    }

    async fn audit(&self, outcome: UpdateOutcome) {
        let sink = lock(&self.inner.audit).clone();
        let Some(sink) = sink else { return };
        match sink.record(&outcome).await {
            Ok(()) => {
                self.inner.state.update(|state| {
                    if let Some(last) = state.last.as_mut().filter(|last| **last == outcome) {
                        last.audited = true;
                    }
                });
            }
            Err(e) => tracing::warn!(error = %e, "cannot audit the update outcome; retried at the next start"),
        }
    }

    fn hand_over(
        &self,
        installation: Installation,
        action: UpdateAction,
        trial: bool,
        expected_version: Option<String>,
    ) {
        let handover = Handover {
            action,
            installation,
            args: self.inner.host.args.clone(),
            trial,
            expected_version,
            trial_replica: lock(&self.inner.trial_replica).clone(),
            health_timeout: self.inner.health_timeout,
            restart: self.inner.restart,
            state: self.inner.state.clone(),
        };
        *lock(&self.inner.handover) = Some(handover);
        self.inner.board.push(Phase::Restarting, "restarting into the installed binary");
        self.inner.shutdown.trigger();
    }

    /// Frees the updater after a run that changed nothing.
    fn release(&self) {
        self.inner.busy.store(false, Ordering::Release);
    }

    /// Marks the updater busy; the claim frees it on drop unless kept.
    fn claim(&self) -> Result<Claim<'_>, UpdateError> {
        if self.inner.shutdown.is_triggered() {
            return Err(UpdateError::InProgress);
        }
        self.inner
            .busy
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .map_err(|_| UpdateError::InProgress)?;
        Ok(Claim { busy: &self.inner.busy, kept: false })
    }
}

struct Claim<'a> {
    busy: &'a AtomicBool,
    kept: bool,
}

impl Claim<'_> {
    fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if !self.kept {
            self.busy.store(false, Ordering::Release);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
