//! RAII ownership of a request's slots: released exactly once, on completion, error, client
//! disconnect, cancellation or panic.
//!
//! Call [`LeaseGuard::release`] on the normal paths (it carries the account feedback). If the
//! guard is dropped instead (the request future was cancelled or panicked), `Drop` spawns the
//! release on the current Tokio runtime; without a runtime, or if that release fails, the slots
//! expire by their TTL.

use std::sync::Arc;
use std::time::Duration;

use super::{
    AccountFeedback, AccountLease, CircuitReport, CoordinationError, HeldLeases, ReleaseOutcome, ReleaseRequest,
    RenewOutcome, RequestSlots, Spend,
};

pub struct LeaseGuard {
    slots: Arc<dyn RequestSlots>,
    held: Option<HeldLeases>,
    /// The current attempt's outcome for its provider circuit, sent with the release (also when
    /// the guard is dropped) or handed to the next acquire of a failover.
    circuit: Option<CircuitReport>,
}

impl LeaseGuard {
    pub fn new(slots: Arc<dyn RequestSlots>, held: HeldLeases) -> Self {
        Self { slots, held: Some(held), circuit: None }
    }

    /// Sets the circuit report of the attempt on the held account slot.
    pub fn report_circuit(&mut self, report: Option<CircuitReport>) {
        self.circuit = report;
    }

    /// Takes the report, for a failover acquire that applies it in its own script.
    pub fn take_circuit(&mut self) -> Option<CircuitReport> {
        self.circuit.take()
    }

    pub fn leases(&self) -> HeldLeases {
        self.held.unwrap_or_default()
    }

    pub fn account(&self) -> Option<AccountLease> {
        self.held.and_then(|held| held.account)
    }

    /// Swaps the account slot after a failover acquire that released the previous one.
    pub fn replace_account(&mut self, account: AccountLease) {
        if let Some(held) = self.held.as_mut() {
            held.account = Some(account);
        }
    }

    pub async fn renew(&self, ttl: Duration) -> Result<RenewOutcome, CoordinationError> {
        self.slots.renew(&self.leases(), ttl).await
    }

    /// Releases now, applying `feedback` to the account.
    pub async fn release(self, feedback: Option<AccountFeedback>) -> Result<ReleaseOutcome, CoordinationError> {
        self.release_spent(feedback, None).await
    }

    /// Releases now, applying `feedback` to the account and adding the request's `spend` to
    /// its client key's budget counters.
    pub async fn release_spent(
        mut self,
        feedback: Option<AccountFeedback>,
        spend: Option<Spend>,
    ) -> Result<ReleaseOutcome, CoordinationError> {
        let leases = self.held.take().unwrap_or_default();
        let circuit = self.circuit.take();
        self.slots.release(&ReleaseRequest { leases, feedback, spend, circuit }).await
    }
}

impl Drop for LeaseGuard {
    fn drop(&mut self) {
        let Some(leases) = self.held.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::debug!("lease guard dropped outside a runtime; slots expire by TTL");
            return;
        };
        let slots = Arc::clone(&self.slots);
        let circuit = self.circuit.take();
        // Detached on purpose: the owner is gone; the release is bounded by the adapter's
        // command timeout and the slots' TTL is the backstop.
        drop(runtime.spawn(async move {
            let release = ReleaseRequest { leases, feedback: None, spend: None, circuit };
            if let Err(error) = slots.release(&release).await {
                tracing::warn!(%error, "release of dropped lease guard failed; slots expire by TTL");
            }
        }));
    }
}
