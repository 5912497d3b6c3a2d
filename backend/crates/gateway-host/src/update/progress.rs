//! The progress of the running update, rollback or restart, for the admin API's event stream.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::sync::watch;

use super::state::UpdateAction;

/// Most events one run keeps.
const EVENT_LIMIT: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Idle,
    Checking,
    Downloading,
    Verifying,
    Installing,
    /// Swapped in; the process is stopping to start the new version (the stream ends here).
    Restarting,
    /// Nothing was changed (the stream ends here).
    Failed,
}

impl Phase {
    /// After this phase the run is over (for this process).
    pub fn is_final(self) -> bool {
        matches!(self, Self::Restarting | Self::Failed | Self::Idle)
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressEvent {
    /// 1, 2, … within the run.
    pub seq: u64,
    pub phase: Phase,
    pub message: String,
    pub downloaded_bytes: u64,
    pub total_bytes: Option<u64>,
    pub at_unix_ms: u64,
}

/// The current run: its action, target version and events so far.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    /// 0 before the first run of this process, then 1, 2, …
    pub run: u64,
    pub action: Option<UpdateAction>,
    pub target_version: Option<String>,
    pub events: Vec<ProgressEvent>,
}

impl Progress {
    pub fn phase(&self) -> Phase {
        self.events.last().map_or(Phase::Idle, |e| e.phase)
    }
}

/// The one writer of [`Progress`]; readers subscribe.
pub struct ProgressBoard {
    tx: watch::Sender<Progress>,
}

impl Default for ProgressBoard {
    fn default() -> Self {
        Self { tx: watch::Sender::new(Progress::default()) }
    }
}

impl ProgressBoard {
    pub fn subscribe(&self) -> watch::Receiver<Progress> {
        self.tx.subscribe()
    }

    pub fn current(&self) -> Progress {
        self.tx.borrow().clone()
    }

    /// Starts a new run (the previous run's events are dropped).
    pub fn begin(&self, action: UpdateAction, target: Option<&str>) {
        self.tx.send_modify(|progress| {
            *progress = Progress {
                run: progress.run + 1,
                action: Some(action),
                target_version: target.map(str::to_owned),
                events: Vec::new(),
            };
        });
    }

    pub fn push(&self, phase: Phase, message: impl Into<String>) {
        self.push_bytes(phase, message, 0, None);
    }

    pub fn push_bytes(&self, phase: Phase, message: impl Into<String>, downloaded: u64, total: Option<u64>) {
        let message = message.into();
        self.tx.send_modify(|progress| {
            let seq = progress.events.last().map_or(1, |e| e.seq + 1);
            if progress.events.len() >= EVENT_LIMIT {
                progress.events.remove(0);
            }
            let at_unix_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
            progress.events.push(ProgressEvent {
                seq,
                phase,
                message,
                downloaded_bytes: downloaded,
                total_bytes: total,
                at_unix_ms,
            });
        });
    }
}
