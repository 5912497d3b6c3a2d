//! The current snapshot, swapped atomically; a request takes one `Arc` and keeps it. The holder
//! also remembers when the snapshot was last confirmed current by the store (loaded, or a
//! reconciliation found the revision unchanged), for `/readyz`.

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::RuntimeSnapshot;

#[derive(Clone)]
pub struct SnapshotHolder {
    current: Arc<RwLock<Arc<RuntimeSnapshot>>>,
    confirmed_at: Arc<Mutex<Option<Instant>>>,
}

impl SnapshotHolder {
    /// A holder whose snapshot was never loaded from the store (until [`install`](Self::install)).
    pub fn new(snapshot: RuntimeSnapshot) -> Self {
        Self { current: Arc::new(RwLock::new(Arc::new(snapshot))), confirmed_at: Arc::new(Mutex::new(None)) }
    }

    /// The snapshot a request freezes. The lock is held only to clone the `Arc`.
    pub fn current(&self) -> Arc<RuntimeSnapshot> {
        self.current.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Installs a newer snapshot; an older or equal revision is ignored unless `force`.
    pub fn install(&self, snapshot: RuntimeSnapshot, force: bool) -> bool {
        let mut current = self.current.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !force && snapshot.config_revision < current.config_revision {
            return false;
        }
        *current = Arc::new(snapshot);
        self.confirm();
        true
    }

    /// Records that the store confirmed the installed snapshot is current.
    pub fn confirm(&self) {
        *self.confirmed_at.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Instant::now());
    }

    /// How long ago the store last confirmed the snapshot; `None`: never loaded.
    pub fn confirmed_ago(&self) -> Option<Duration> {
        self.confirmed_at.lock().unwrap_or_else(std::sync::PoisonError::into_inner).map(|at| at.elapsed())
    }
}
