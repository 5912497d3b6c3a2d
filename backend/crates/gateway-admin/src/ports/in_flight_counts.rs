//! Live in-flight slot counts per account (coordination storage), for the admin views.

use async_trait::async_trait;

use gateway_core::coordination::CoordinationError;
use gateway_core::domain::AccountId;

#[async_trait]
pub trait InFlightCounts: Send + Sync {
    /// Live (unexpired) slots of each account, same order; one round trip.
    async fn in_flight(&self, accounts: &[AccountId]) -> Result<Vec<u32>, CoordinationError>;
}
