//! The reference the acquire property test holds each adapter to: core's acquire plan
//! (`acquire_plan::run`) over a plain record of the state the test set up through the ports.

use std::collections::HashMap;

use gateway_core::coordination::acquire_plan::{
    AcquireState, AdmissionRead, BindingWrite, CircuitRead, GrantWrites, PeriodSpend,
};
use gateway_core::coordination::{
    AccountFeedback, AccountLease, AffinityKey, CircuitReport, FenceToken, SpendPeriod, UnixMillis,
};
use gateway_core::domain::{AccountId, ClientKeyId, ProviderKind};
use gateway_core::selection::SlotState;

/// What the store is expected to hold before the checked acquire.
#[derive(Debug, Default)]
pub struct ReferenceState {
    pub circuit: CircuitRead,
    pub spend: PeriodSpend,
    pub slots: HashMap<AccountId, SlotState>,
    pub binding: Option<AccountId>,
    pub admission: AdmissionRead,
    /// The grant the plan asked for, if any.
    pub recorded: Option<GrantWrites>,
}

impl AcquireState for ReferenceState {
    fn free_account_slot(&mut self, lease: &AccountLease) {
        if let Some(slot) = self.slots.get_mut(&lease.account) {
            slot.in_flight = slot.in_flight.saturating_sub(1);
        }
    }

    fn apply_feedback(&mut self, _account: AccountId, _now: UnixMillis, _feedback: &AccountFeedback) {}

    fn apply_circuit_report(&mut self, _now: UnixMillis, _report: &CircuitReport) {}

    fn circuit(&mut self, _provider: ProviderKind, _now: UnixMillis) -> CircuitRead {
        self.circuit
    }

    fn admission(&mut self, _client_key: ClientKeyId, _now: UnixMillis) -> AdmissionRead {
        self.admission
    }

    fn spent(&mut self, _client_key: ClientKeyId, _period: SpendPeriod) -> PeriodSpend {
        self.spend
    }

    fn slot_state(&mut self, account: AccountId, _model: &str, _now: UnixMillis) -> SlotState {
        self.slots.get(&account).copied().unwrap_or_default()
    }

    fn binding(&mut self, _key: &AffinityKey, _now: UnixMillis) -> Option<AccountId> {
        self.binding
    }

    fn record_grant(&mut self, grant: &GrantWrites) -> FenceToken {
        if let BindingWrite::Bind { account, .. } = grant.binding {
            self.binding = Some(account);
        }
        self.recorded = Some(grant.clone());
        // The adapter's token is its own; the comparison leaves it out.
        FenceToken(0)
    }
}
