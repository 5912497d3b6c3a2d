//! Per-account runtime signals outside the hot path: cooldowns with the fault that set them (read
//! by the account state resolver, written by the release feedback or directly) and
//! model-not-supported exclusions.

use std::time::Duration;

use async_trait::async_trait;

use super::{CoordinationError, UnixMillis};
use crate::domain::AccountId;
use crate::fault::Fault;

/// Most model exclusions kept per account; beyond it the one that ends first is dropped.
pub const MAX_MODEL_EXCLUSIONS: usize = 32;

/// One account + model exclusion in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelExclusion {
    pub model: String,
    pub until: UnixMillis,
}

/// A cooldown in force: until when, and the fault row that set it (`None` when the store holds
/// no fault for it, as for a cooldown written before faults were recorded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cooldown {
    pub until: UnixMillis,
    pub fault: Option<Fault>,
}

#[async_trait]
pub trait Cooldowns: Send + Sync {
    /// Cools the account down for `duration` from the store's now because of `fault`; a later
    /// existing deadline is kept (with its fault). Returns the deadline in force.
    async fn set_cooldown(
        &self,
        account: AccountId,
        duration: Duration,
        fault: Fault,
    ) -> Result<UnixMillis, CoordinationError>;

    async fn clear_cooldown(&self, account: AccountId) -> Result<(), CoordinationError>;

    /// The cooldown in force for each account (same order), `None` when not cooling down. One
    /// round trip for the whole list.
    async fn cooldowns(&self, accounts: &[AccountId]) -> Result<Vec<Option<Cooldown>>, CoordinationError>;

    /// Excludes the account for `model` during `ttl` (bounded by [`MAX_MODEL_EXCLUSIONS`]).
    async fn exclude_model(&self, account: AccountId, model: &str, ttl: Duration) -> Result<(), CoordinationError>;

    /// The exclusions in force for the account, soonest ending first.
    async fn model_exclusions(&self, account: AccountId) -> Result<Vec<ModelExclusion>, CoordinationError>;
}
