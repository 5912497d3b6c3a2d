//! `SessionAffinity` over the binding keys the acquire script also reads and writes.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{AffinityKey, CoordinationError, RebindOutcome, SessionAffinity};
use gateway_core::domain::AccountId;

use super::RedisCoordination;
use super::acquire::parse_account_text;
use super::reply::Reply;

#[async_trait]
impl SessionAffinity for RedisCoordination {
    async fn binding(&self, key: &AffinityKey) -> Result<Option<AccountId>, CoordinationError> {
        let mut cmd = ::redis::cmd("GET");
        cmd.arg(self.keys.affinity(key));
        let bound: Option<String> = self.connection.query(&cmd).await?;
        bound
            .map(|text| text.parse::<i64>().map(AccountId))
            .transpose()
            .map_err(|_| CoordinationError::Protocol("affinity binding is not an account id".to_owned()))
    }

    async fn bind_if_absent(
        &self,
        key: &AffinityKey,
        account: AccountId,
        idle_ttl: Duration,
    ) -> Result<AccountId, CoordinationError> {
        let script = &self.scripts.affinity_bind;
        let value = script
            .call()
            .key(self.keys.affinity(key))
            .arg(account.to_string())
            .arg(duration_millis(idle_ttl))
            .invoke(&self.connection)
            .await?;
        let mut reply = Reply::new(script.name, value)?;
        let text = reply.text()?;
        parse_account_text(&text, &reply)
    }

    async fn rebind(
        &self,
        key: &AffinityKey,
        from: AccountId,
        to: AccountId,
        idle_ttl: Duration,
    ) -> Result<RebindOutcome, CoordinationError> {
        let script = &self.scripts.affinity_rebind;
        let value = script
            .call()
            .key(self.keys.affinity(key))
            .arg(from.to_string())
            .arg(to.to_string())
            .arg(duration_millis(idle_ttl))
            .invoke(&self.connection)
            .await?;
        let mut reply = Reply::new(script.name, value)?;
        let outcome = reply.text()?;
        match outcome.as_str() {
            "rebound" => Ok(RebindOutcome::Rebound),
            "missing" => Ok(RebindOutcome::Missing),
            "moved" => {
                let text = reply.text()?;
                Ok(RebindOutcome::Moved { current: parse_account_text(&text, &reply)? })
            }
            other => Err(reply.unknown(other)),
        }
    }

    async fn forget(&self, key: &AffinityKey) -> Result<(), CoordinationError> {
        let mut cmd = ::redis::cmd("DEL");
        cmd.arg(self.keys.affinity(key));
        self.connection.query::<i64>(&cmd).await.map(drop)
    }
}
