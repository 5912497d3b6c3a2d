//! `Cooldowns` over the account hash (`cool_until`, `cool_fault`) and the exclusions sorted set.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::cooldown::MAX_MODEL_EXCLUSIONS;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{Cooldown, Cooldowns, CoordinationError, ModelExclusion, UnixMillis};
use gateway_core::domain::AccountId;
use gateway_core::fault::Fault;

use super::RedisCoordination;
use super::reply::Reply;

#[async_trait]
impl Cooldowns for RedisCoordination {
    async fn set_cooldown(
        &self,
        account: AccountId,
        duration: Duration,
        fault: Fault,
    ) -> Result<UnixMillis, CoordinationError> {
        let script = &self.scripts.set_cooldown;
        let value = script
            .call()
            .key(self.keys.account(account))
            .arg(duration_millis(duration))
            .arg(fault.as_str())
            .invoke(&self.connection)
            .await?;
        Ok(UnixMillis(Reply::new(script.name, value)?.u64()?))
    }

    async fn clear_cooldown(&self, account: AccountId) -> Result<(), CoordinationError> {
        let mut cmd = ::redis::cmd("HDEL");
        cmd.arg(self.keys.account(account)).arg("cool_until").arg("cool_fault");
        self.connection.query::<i64>(&cmd).await.map(drop)
    }

    async fn cooldowns(&self, accounts: &[AccountId]) -> Result<Vec<Option<Cooldown>>, CoordinationError> {
        if accounts.is_empty() {
            return Ok(Vec::new());
        }
        let script = &self.scripts.read_cooldowns;
        let mut call = script.call();
        for account in accounts {
            call = call.key(self.keys.account(*account));
        }
        let mut reply = Reply::new(script.name, call.invoke(&self.connection).await?)?;
        accounts
            .iter()
            .map(|_| {
                let until = reply.u64()?;
                // An unknown or missing fault (a cooldown from an older gateway) reads as none.
                let fault = reply.text()?.parse::<Fault>().ok();
                Ok((until > 0).then_some(Cooldown { until: UnixMillis(until), fault }))
            })
            .collect()
    }

    async fn exclude_model(&self, account: AccountId, model: &str, ttl: Duration) -> Result<(), CoordinationError> {
        self.scripts
            .exclude_model
            .call()
            .key(self.keys.account_exclusions(account))
            .arg(model)
            .arg(duration_millis(ttl))
            .arg(MAX_MODEL_EXCLUSIONS)
            .invoke(&self.connection)
            .await
            .map(drop)
    }

    async fn model_exclusions(&self, account: AccountId) -> Result<Vec<ModelExclusion>, CoordinationError> {
        let script = &self.scripts.read_exclusions;
        let value = script.call().key(self.keys.account_exclusions(account)).invoke(&self.connection).await?;
        let mut reply = Reply::new(script.name, value)?;
        let mut exclusions = Vec::new();
        while reply.has_more() {
            exclusions.push(ModelExclusion { model: reply.text()?, until: UnixMillis(reply.u64()?) });
        }
        Ok(exclusions)
    }
}
