//! `<server.data_dir>/update-state.json`: what the last update, rollback or restart did, kept
//! across the restart so the next process can report it (and audit it), and which version
//! `<binary>.previous` holds.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// What was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UpdateAction {
    Update,
    Rollback,
    Restart,
}

impl UpdateAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Update => "update",
            Self::Rollback => "rollback",
            Self::Restart => "restart",
        }
    }
}

/// How it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeResult {
    /// Swapped in, restarting into it; the trial has not answered yet.
    Pending,
    /// The new binary passed its health check and runs.
    Installed,
    /// The new binary failed its health check; the previous one was put back.
    RolledBack,
    /// Stopped before anything was swapped (download, verification, refusal of the new binary).
    Failed,
    /// A plain restart.
    Restarted,
}

impl OutcomeResult {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Installed => "installed",
            Self::RolledBack => "rolled_back",
            Self::Failed => "failed",
            Self::Restarted => "restarted",
        }
    }
}

/// Who asked (an admin, for the audit row written when the outcome is known).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requester {
    pub user_id: Option<i64>,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateOutcome {
    pub action: UpdateAction,
    pub from_version: String,
    pub to_version: Option<String>,
    pub result: OutcomeResult,
    /// Why it failed or was rolled back (no secrets: messages of this module).
    pub reason: Option<String>,
    pub requested_by: Requester,
    pub at_unix_seconds: u64,
    /// Whether the audit row for this outcome was written.
    #[serde(default)]
    pub audited: bool,
}

impl UpdateOutcome {
    pub fn new(action: UpdateAction, from: &str, to: Option<&str>, result: OutcomeResult, by: Requester) -> Self {
        Self {
            action,
            from_version: from.to_owned(),
            to_version: to.map(str::to_owned),
            result,
            reason: None,
            requested_by: by,
            at_unix_seconds: now_seconds(),
            audited: false,
        }
    }

    pub fn ended(mut self, result: OutcomeResult, reason: Option<String>) -> Self {
        self.result = result;
        self.reason = reason;
        self.at_unix_seconds = now_seconds();
        self.audited = false;
        self
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateState {
    /// The version `<binary>.previous` holds.
    pub previous_version: Option<String>,
    pub last: Option<UpdateOutcome>,
}

#[derive(Debug, Clone)]
pub struct StateFile {
    path: PathBuf,
}

impl StateFile {
    pub fn in_dir(data_dir: &Path) -> Self {
        Self { path: data_dir.join("update-state.json") }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored state; a missing or unreadable file is an empty state (logged).
    pub fn load(&self) -> UpdateState {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(path = %self.path.display(), error = %e, "ignoring an unreadable update state file");
                UpdateState::default()
            }),
            Err(_) => UpdateState::default(),
        }
    }

    /// Replaces the file atomically (write, sync, rename); the directory is created (0700).
    pub fn save(&self, state: &UpdateState) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        let tmp = self.path.with_extension(format!("json.{}", std::process::id()));
        let json = serde_json::to_vec_pretty(state).map_err(std::io::Error::other)?;
        let mut file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
        file.write_all(&json)?;
        file.sync_all()?;
        std::fs::rename(&tmp, &self.path)
    }

    /// Loads, applies `change`, saves; a failure to save is logged (the state is advisory: the
    /// binaries on disk are the truth).
    pub fn update(&self, change: impl FnOnce(&mut UpdateState)) -> UpdateState {
        let mut state = self.load();
        change(&mut state);
        if let Err(e) = self.save(&state) {
            tracing::warn!(path = %self.path.display(), error = %e, "cannot write the update state file");
        }
        state
    }
}

pub fn now_seconds() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}
