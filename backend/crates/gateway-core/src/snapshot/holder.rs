//! The current snapshot, swapped atomically; a request takes one `Arc` and keeps it.

use std::sync::{Arc, RwLock};

use super::RuntimeSnapshot;

#[derive(Clone)]
pub struct SnapshotHolder {
    current: Arc<RwLock<Arc<RuntimeSnapshot>>>,
}

impl SnapshotHolder {
    pub fn new(snapshot: RuntimeSnapshot) -> Self {
        Self { current: Arc::new(RwLock::new(Arc::new(snapshot))) }
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
        true
    }
}
