//! The slots this process holds: every request's [`LeaseGuard`] registers here, the heartbeat
//! renews them all with one call per period, and the releases that run after a response (or a
//! dropped guard) are tasks tracked here, so shutdown can wait for them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio_util::task::TaskTracker;

use super::heartbeat::{HeartbeatOutcome, MAX_HEARTBEAT_LEASES, ReplicaHeartbeats};
use super::{CoordinationError, HeldLeases, LeaseGuard, RequestSlots};
use crate::domain::BootId;

/// Cheap to clone; every clone is the same registry.
#[derive(Clone)]
pub struct HeldSlots {
    inner: Arc<Inner>,
}

struct Inner {
    slots: Arc<dyn RequestSlots>,
    boot: BootId,
    held: Mutex<HashMap<u64, HeldLeases>>,
    next: AtomicU64,
    releases: TaskTracker,
}

impl HeldSlots {
    /// The registry of the process whose slots are owned by `boot`.
    pub fn new(slots: Arc<dyn RequestSlots>, boot: BootId) -> Self {
        Self {
            inner: Arc::new(Inner {
                slots,
                boot,
                held: Mutex::new(HashMap::new()),
                next: AtomicU64::new(0),
                releases: TaskTracker::new(),
            }),
        }
    }

    /// The owner every acquire of this process names.
    pub fn boot(&self) -> BootId {
        self.inner.boot
    }

    pub fn slots(&self) -> &Arc<dyn RequestSlots> {
        &self.inner.slots
    }

    /// A guard for freshly granted leases, registered for the heartbeat until it releases.
    pub fn guard(&self, held: HeldLeases) -> LeaseGuard {
        let id = self.inner.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(id, held);
        LeaseGuard::registered(self.clone(), id, held)
    }

    /// Requests holding a slot per account now (read when `/metrics` is scraped).
    pub fn in_flight_by_account(&self) -> HashMap<crate::domain::AccountId, u32> {
        let mut counts = HashMap::new();
        for held in self.lock().values() {
            if let Some(lease) = &held.account {
                *counts.entry(lease.account).or_insert(0) += 1;
            }
        }
        counts
    }

    /// How many requests hold slots now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Renews every held slot and marks this boot alive: one call per
    /// [`MAX_HEARTBEAT_LEASES`] holders (at least one, so an idle replica stays alive).
    pub async fn beat(
        &self,
        heartbeats: &dyn ReplicaHeartbeats,
        ttl: Duration,
    ) -> Result<HeartbeatOutcome, CoordinationError> {
        let held: Vec<HeldLeases> = self.lock().values().copied().collect();
        let mut outcome = HeartbeatOutcome::default();
        if held.is_empty() {
            return heartbeats.heartbeat(self.inner.boot, &[], ttl).await;
        }
        for chunk in held.chunks(MAX_HEARTBEAT_LEASES) {
            outcome.add(heartbeats.heartbeat(self.inner.boot, chunk, ttl).await?);
        }
        Ok(outcome)
    }

    /// Stops accepting release tasks and waits up to `timeout` for those still running.
    pub async fn wait_for_releases(&self, timeout: Duration) -> bool {
        self.inner.releases.close();
        tokio::time::timeout(timeout, self.inner.releases.wait()).await.is_ok()
    }

    pub(crate) fn update(&self, id: u64, held: HeldLeases) {
        if let Some(entry) = self.lock().get_mut(&id) {
            *entry = held;
        }
    }

    pub(crate) fn forget(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Runs a release in the background, tracked; `false` when no runtime can run it (the slots
    /// then expire by their TTL).
    pub(crate) fn spawn_release(&self, release: impl Future<Output = ()> + Send + 'static) -> bool {
        if tokio::runtime::Handle::try_current().is_err() {
            return false;
        }
        // A closed tracker (shutdown) still runs and tracks the task; only `wait` has started.
        drop(self.inner.releases.spawn(release));
        true
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<u64, HeldLeases>> {
        // Every operation leaves the map consistent before it can panic.
        self.inner.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
