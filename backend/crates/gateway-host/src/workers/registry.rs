//! The shared health record of every worker.

use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerState {
    Running,
    /// Failed or panicked; waiting before the next restart.
    BackingOff,
    /// `run` returned `Ok` before shutdown: the worker chose to end.
    Finished,
    Stopped,
    Aborted,
}

/// One worker's health as `/readyz` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct WorkerStatus {
    pub name: String,
    pub state: WorkerState,
    pub restarts: u32,
    pub last_error: Option<String>,
    pub healthy: bool,
}

#[derive(Clone, Default)]
pub struct WorkerRegistry {
    inner: Arc<Mutex<Vec<WorkerStatus>>>,
}

impl WorkerRegistry {
    fn lock(&self) -> MutexGuard<'_, Vec<WorkerStatus>> {
        // A poisoned lock only means a panic elsewhere while holding it; the data stays usable.
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.lock().iter().any(|w| w.name == name)
    }

    pub(crate) fn add(&self, name: &str) -> StatusHandle {
        let mut all = self.lock();
        all.push(WorkerStatus {
            name: name.to_owned(),
            state: WorkerState::Running,
            restarts: 0,
            last_error: None,
            healthy: true,
        });
        StatusHandle { registry: self.clone(), index: all.len() - 1 }
    }

    pub fn snapshot(&self) -> Vec<WorkerStatus> {
        self.lock().clone()
    }

    pub(crate) fn mark_aborted(&self) -> Vec<String> {
        let mut all = self.lock();
        let mut stuck = Vec::new();
        for status in all.iter_mut().filter(|w| matches!(w.state, WorkerState::Running | WorkerState::BackingOff)) {
            status.state = WorkerState::Aborted;
            status.healthy = false;
            stuck.push(status.name.clone());
        }
        stuck
    }
}

/// A worker's own handle on its record.
pub(crate) struct StatusHandle {
    registry: WorkerRegistry,
    index: usize,
}

impl StatusHandle {
    pub(crate) fn update(&self, f: impl FnOnce(&mut WorkerStatus)) {
        let mut all = self.registry.lock();
        if let Some(status) = all.get_mut(self.index) {
            f(status);
            status.healthy =
                matches!(status.state, WorkerState::Running | WorkerState::Finished | WorkerState::Stopped);
        }
    }
}
