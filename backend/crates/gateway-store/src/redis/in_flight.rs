//! [`InFlightCounts`] over the account slot sets (`{P}:acct:<id>:slots`, members scored by
//! their expiry): one EVAL counts the unexpired members of every account against Redis `TIME`.

use async_trait::async_trait;

use gateway_admin::ports::InFlightCounts;
use gateway_core::coordination::CoordinationError;
use gateway_core::domain::AccountId;

use super::RedisCoordination;

const COUNT_LIVE_SLOTS: &str = "local t = redis.call('TIME') \
     local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) \
     local out = {} \
     for i, key in ipairs(KEYS) do out[i] = redis.call('ZCOUNT', key, '(' .. now, '+inf') end \
     return out";

#[async_trait]
impl InFlightCounts for RedisCoordination {
    async fn in_flight(&self, accounts: &[AccountId]) -> Result<Vec<u32>, CoordinationError> {
        if accounts.is_empty() {
            return Ok(Vec::new());
        }
        let mut eval = ::redis::cmd("EVAL");
        eval.arg(COUNT_LIVE_SLOTS).arg(accounts.len());
        for account in accounts {
            eval.arg(self.keys.account_slots(*account));
        }
        let counts: Vec<i64> = self.connection.query(&eval).await?;
        Ok(counts.into_iter().map(|c| u32::try_from(c).unwrap_or(0)).collect())
    }
}
