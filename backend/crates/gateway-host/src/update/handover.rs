//! Handing the process over to the binary now installed, after the HTTP drain and the workers
//! have stopped (decision 0194).
//!
//! For an update or a rollback the installed binary first runs a **trial**: started as a child
//! with the same arguments and environment, on a free loopback port and its own replica name,
//! it must report the expected version on `/healthz` and answer `/readyz` with 200 within
//! `update.health_timeout_seconds`. It is then stopped (SIGTERM). A trial that exits, reports
//! another version or is not ready in time fails: the binary that ran before is put back. Either
//! way the process then restarts into whatever is installed now — `exec` in place (same PID) or
//! exit code 75 for a supervisor — so the outcome is reported by the next process.

use std::ffi::OsString;
use std::net::{Ipv4Addr, SocketAddr};
use std::os::unix::process::CommandExt;
use std::process::Stdio;
use std::time::Duration;

use gateway_transport::{Connector, HttpClient, HttpRequest, TlsRoots};

use crate::config::RestartMode;

use super::install::Installation;
use super::state::{OutcomeResult, StateFile, UpdateAction};

/// Longest wait for one answer of the trial.
const LOOK_TIMEOUT: Duration = Duration::from_secs(2);
/// The most of a `/healthz` or `/readyz` answer read.
const LOOK_BODY_LIMIT: usize = 64 * 1024;

/// The exit code asking a supervisor to start the binary again (`EX_TEMPFAIL`).
pub const RESTART_EXIT_CODE: u8 = 75;

/// What the stopped process does next.
#[derive(Debug, Clone)]
pub struct Handover {
    pub action: UpdateAction,
    pub installation: Installation,
    pub args: Vec<OsString>,
    /// Whether the installed binary runs a health-checked trial first (update, rollback).
    pub trial: bool,
    /// The version the trial must report on `/healthz` (`None`: any).
    pub expected_version: Option<String>,
    pub trial_replica: String,
    pub health_timeout: Duration,
    pub restart: RestartMode,
    pub state: StateFile,
}

/// How the hand-over ended when it did not `exec`.
#[derive(Debug, PartialEq, Eq)]
pub enum HandoverEnd {
    /// Exit with this code (restart mode `exit`).
    Exit(u8),
    /// The restart itself failed.
    Failed(String),
}

impl Handover {
    /// Runs the trial (when there is one), puts the previous binary back when it fails, records
    /// the outcome and restarts. Returns only when the restart is an exit or failed.
    pub async fn run(self) -> HandoverEnd {
        if self.trial {
            let verdict = trial(&self, self.expected_version.as_deref()).await;
            self.settle(verdict);
        }
        self.restart_now()
    }

    fn settle(&self, verdict: Result<(), String>) {
        match verdict {
            Ok(()) => {
                tracing::info!(action = self.action.as_str(), version = ?self.expected_version, "the new version passed its health check");
                self.record(OutcomeResult::Installed, None);
            }
            Err(reason) => {
                tracing::warn!(action = self.action.as_str(), %reason, "the new version failed its health check; rolling back");
                let restored = match self.action {
                    UpdateAction::Rollback => self.installation.exchange(),
                    _ => self.installation.restore_previous(),
                };
                match restored {
                    Ok(()) => {
                        if self.action == UpdateAction::Update {
                            self.state.update(|s| s.previous_version = None);
                        }
                        self.record(OutcomeResult::RolledBack, Some(reason));
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "cannot put the previous binary back");
                        self.record(
                            OutcomeResult::RolledBack,
                            Some(format!("{reason}; putting the previous binary back failed: {e}")),
                        );
                    }
                }
            }
        }
    }

    fn record(&self, result: OutcomeResult, reason: Option<String>) {
        self.state.update(|state| {
            if let Some(last) = state.last.take() {
                state.last = Some(last.ended(result, reason));
            }
        });
    }

    fn restart_now(&self) -> HandoverEnd {
        match self.restart {
            RestartMode::Exit => {
                tracing::info!(code = RESTART_EXIT_CODE, "exiting for the supervisor to start the installed binary");
                HandoverEnd::Exit(RESTART_EXIT_CODE)
            }
            RestartMode::Exec => {
                let binary = self.installation.binary();
                tracing::info!(binary = %binary.display(), "restarting in place (exec)");
                let mut command = std::process::Command::new(binary);
                command.args(&self.args);
                if self.trial {
                    // Another binary now: it reports its own version, not one this process
                    // inherited.
                    command.env_remove(crate::build_info::VERSION_OVERRIDE_ENV);
                }
                let error = command.exec();
                HandoverEnd::Failed(format!("cannot exec {}: {error}", binary.display()))
            }
        }
    }
}

/// What one look at the trial said.
enum Look {
    Ready,
    WrongVersion(String),
    NotYet(String),
}

async fn trial(handover: &Handover, expected: Option<&str>) -> Result<(), String> {
    let addr = free_loopback_port().map_err(|e| format!("no free port for the trial: {e}"))?;
    let mut child = tokio::process::Command::new(handover.installation.binary())
        .args(&handover.args)
        .env("SWITCHBOARD_SERVER_LISTEN", addr.to_string())
        .env("SWITCHBOARD_SERVER_REPLICA_NAME", &handover.trial_replica)
        .env_remove(crate::build_info::VERSION_OVERRIDE_ENV)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("the new version does not start: {e}"))?;
    tracing::info!(%addr, pid = ?child.id(), ?expected, "trial of the new version started");
    // The trial is asked over plain HTTP on loopback: the one outbound stack, no proxy.
    let roots = TlsRoots::new(None).map_err(|e| format!("cannot build the HTTP client: {e}"))?;
    let client = HttpClient::new(Connector::new(roots, LOOK_TIMEOUT));
    let deadline = tokio::time::Instant::now() + handover.health_timeout;
    let mut last = String::from("no answer yet");
    let verdict = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Err(format!("the new version exited ({status}) before it was healthy")),
            Ok(None) => {}
            Err(e) => break Err(format!("cannot watch the new version: {e}")),
        }
        if tokio::time::Instant::now() >= deadline {
            let seconds = handover.health_timeout.as_secs();
            break Err(format!("the new version was not ready within {seconds} s ({last})"));
        }
        match look(&client, addr, expected).await {
            Look::Ready => break Ok(()),
            Look::WrongVersion(found) => {
                let expected = expected.unwrap_or_default();
                break Err(format!("the new binary reports version {found}, expected {expected}"));
            }
            Look::NotYet(reason) => last = reason,
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    stop(&mut child).await;
    client.close().await;
    verdict
}

async fn look(client: &HttpClient, addr: SocketAddr, expected: Option<&str>) -> Look {
    let health = match ask(client, addr, "/healthz").await {
        Ok((_, body)) => body,
        Err(_) => return Look::NotYet("not listening yet".to_owned()),
    };
    match (health["version"].as_str(), expected) {
        (Some(version), Some(expected)) if version != expected => return Look::WrongVersion(version.to_owned()),
        (Some(_), _) => {}
        (None, _) => return Look::NotYet("/healthz without a version".to_owned()),
    }
    match ask(client, addr, "/readyz").await {
        Ok((200..=299, _)) => Look::Ready,
        Ok((status, body)) => Look::NotYet(format!("/readyz {status} {}", body["status"].as_str().unwrap_or(""))),
        Err(e) => Look::NotYet(format!("/readyz: {e}")),
    }
}

/// One GET to the trial within [`LOOK_TIMEOUT`]: the status and the JSON body (`Null` when the
/// body is not JSON).
async fn ask(client: &HttpClient, addr: SocketAddr, path: &str) -> Result<(u16, serde_json::Value), String> {
    let request = HttpRequest::get(&format!("http://{addr}{path}")).map_err(|e| e.to_string())?;
    let answer = client.fetch(request, None, LOOK_TIMEOUT, LOOK_BODY_LIMIT).await.map_err(|e| e.to_string())?;
    Ok((answer.status, serde_json::from_slice(&answer.body).unwrap_or_default()))
}

/// SIGTERM, then at most 30 s for the drain (the trial serves no clients), then SIGKILL.
async fn stop(child: &mut tokio::process::Child) {
    if let Some(pid) = child.id().and_then(|id| i32::try_from(id).ok()) {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGTERM);
        if tokio::time::timeout(Duration::from_secs(30), child.wait()).await.is_ok() {
            return;
        }
    }
    let _ = child.kill().await;
}

fn free_loopback_port() -> std::io::Result<SocketAddr> {
    let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    listener.local_addr()
}
