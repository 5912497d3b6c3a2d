//! `Cooldowns` over the account hash (`cool_until`) and the exclusions sorted set.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::cooldown::MAX_MODEL_EXCLUSIONS;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{Cooldowns, CoordinationError, ModelExclusion, UnixMillis};
use gateway_core::domain::AccountId;

use super::RedisCoordination;
use super::reply::Reply;

#[async_trait]
impl Cooldowns for RedisCoordination {
    async fn set_cooldown(&self, account: AccountId, duration: Duration) -> Result<UnixMillis, CoordinationError> {
        let script = &self.scripts.set_cooldown;
        let value = script
            .call()
            .key(self.keys.account(account))
            .arg(duration_millis(duration))
            .invoke(&self.connection)
            .await?;
        Ok(UnixMillis(Reply::new(script.name, value)?.u64()?))
    }

    async fn clear_cooldown(&self, account: AccountId) -> Result<(), CoordinationError> {
        let mut cmd = ::redis::cmd("HDEL");
        cmd.arg(self.keys.account(account)).arg("cool_until");
        self.connection.query::<i64>(&cmd).await.map(drop)
    }

    async fn cooldowns(&self, accounts: &[AccountId]) -> Result<Vec<Option<UnixMillis>>, CoordinationError> {
        if accounts.is_empty() {
            return Ok(Vec::new());
        }
        let script = &self.scripts.read_cooldowns;
        let mut call = script.call();
        for account in accounts {
            call = call.key(self.keys.account(*account));
        }
        let mut reply = Reply::new(script.name, call.invoke(&self.connection).await?)?;
        accounts.iter().map(|_| reply.u64().map(|until| (until > 0).then_some(UnixMillis(until)))).collect()
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
