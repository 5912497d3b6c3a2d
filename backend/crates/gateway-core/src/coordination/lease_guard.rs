//! RAII ownership of a request's slots: released exactly once, on completion, error, client
//! disconnect, cancellation or panic.
//!
//! Guards are made by [`HeldSlots::guard`] and registered with their process's registry: the
//! heartbeat renews their slots while they live, and background releases run as tasks the
//! registry tracks. Call [`LeaseGuard::release`] (or [`LeaseGuard::release_later`] off the client's path)
//! on the normal paths; they carry the account feedback. If the guard is dropped instead (the
//! request future was cancelled or panicked), `Drop` starts the release in the background;
//! without a runtime, or if that release fails, the slots expire by their (short) TTL, since
//! nothing renews them any more. The current attempt's provider-circuit outcome travels with
//! whichever release happens.

use std::sync::Arc;

use super::held_slots::HeldSlots;
use super::{
    AccountFeedback, AccountLease, CircuitReport, CoordinationError, HeldLeases, ReleaseOutcome, ReleaseRequest, Spend,
};

pub struct LeaseGuard {
    registry: HeldSlots,
    id: u64,
    held: Option<HeldLeases>,
    /// The current attempt's outcome for its provider circuit, sent with the release (also when
    /// the guard is dropped) or handed to the next acquire of a failover.
    circuit: Option<CircuitReport>,
}

impl LeaseGuard {
    pub(crate) fn registered(registry: HeldSlots, id: u64, held: HeldLeases) -> Self {
        Self { registry, id, held: Some(held), circuit: None }
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
            self.registry.update(self.id, *held);
        }
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
        let release = self.take(feedback, spend);
        self.registry.slots().release(&release).await
    }

    /// Releases in the background (off the client's path), as a task of the registry.
    pub fn release_later(mut self, feedback: Option<AccountFeedback>, spend: Option<Spend>) {
        let release = self.take(feedback, spend);
        self.spawn_release(release);
    }

    /// Takes the leases and the circuit report out of the guard, and the leases out of the
    /// registry (the heartbeat stops renewing them).
    fn take(&mut self, feedback: Option<AccountFeedback>, spend: Option<Spend>) -> ReleaseRequest {
        self.registry.forget(self.id);
        let leases = self.held.take().unwrap_or_default();
        ReleaseRequest { leases, feedback, spend, circuit: self.circuit.take() }
    }

    fn spawn_release(&self, release: ReleaseRequest) {
        let slots = Arc::clone(self.registry.slots());
        let started = self.registry.spawn_release(async move {
            if let Err(error) = slots.release(&release).await {
                tracing::warn!(%error, "background release failed; the slots expire by their TTL");
            }
        });
        if !started {
            tracing::debug!("lease guard released outside a runtime; slots expire by TTL");
        }
    }
}

impl Drop for LeaseGuard {
    fn drop(&mut self) {
        if self.held.is_none() {
            return;
        }
        let release = self.take(None, None);
        self.spawn_release(release);
    }
}
