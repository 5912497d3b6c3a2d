//! `Cooldowns` in process.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::{AccountFeedback, Cooldown, Cooldowns, CoordinationError, ModelExclusion, UnixMillis};
use gateway_core::domain::AccountId;
use gateway_core::fault::Fault;

use super::MemoryCoordination;
use super::acquire::apply_feedback;

#[async_trait]
impl Cooldowns for MemoryCoordination {
    async fn set_cooldown(
        &self,
        account: AccountId,
        duration: Duration,
        fault: Fault,
    ) -> Result<UnixMillis, CoordinationError> {
        let (mut state, now) = self.lock();
        apply_feedback(&mut state, account, now, &AccountFeedback::Cooldown { duration, fault });
        Ok(UnixMillis(state.account(account).cool_until))
    }

    async fn clear_cooldown(&self, account: AccountId) -> Result<(), CoordinationError> {
        let (mut state, _) = self.lock();
        let account = state.account(account);
        account.cool_until = 0;
        account.cool_fault = None;
        Ok(())
    }

    async fn cooldowns(&self, accounts: &[AccountId]) -> Result<Vec<Option<Cooldown>>, CoordinationError> {
        let (state, now) = self.lock();
        Ok(accounts
            .iter()
            .map(|account| {
                let account = state.accounts.get(account)?;
                (account.cool_until > now)
                    .then_some(Cooldown { until: UnixMillis(account.cool_until), fault: account.cool_fault })
            })
            .collect())
    }

    async fn exclude_model(&self, account: AccountId, model: &str, ttl: Duration) -> Result<(), CoordinationError> {
        let (mut state, now) = self.lock();
        apply_feedback(&mut state, account, now, &AccountFeedback::ExcludeModel { model: model.to_owned(), ttl });
        Ok(())
    }

    async fn model_exclusions(&self, account: AccountId) -> Result<Vec<ModelExclusion>, CoordinationError> {
        let (state, now) = self.lock();
        let mut exclusions: Vec<ModelExclusion> = state
            .accounts
            .get(&account)
            .map(|a| {
                a.exclusions
                    .iter()
                    .filter(|(_, until)| **until > now)
                    .map(|(model, until)| ModelExclusion { model: model.clone(), until: UnixMillis(*until) })
                    .collect()
            })
            .unwrap_or_default();
        exclusions.sort_by(|a, b| a.until.cmp(&b.until).then_with(|| a.model.cmp(&b.model)));
        Ok(exclusions)
    }
}
