//! [`LoginThrottle`] over Redis: one counter per subject, `P:admin:login:{<sha256 hex>}`, in a
//! fixed window that the first attempt opens; counting and taking back are one script each
//! (`login_count`, `login_uncount`), so concurrent attempts each get their own count.
//! Once-markers (a TOTP step used) are `P:admin:once:{<sha256 hex>}` with `SET NX PX`.

use std::time::Duration;

use async_trait::async_trait;
use sha2::{Digest, Sha256};

use gateway_admin::ports::{FailureCount, LoginThrottle};
use gateway_core::coordination::CoordinationError;
use gateway_core::coordination::affinity::hex;
use gateway_core::coordination::time::duration_millis;

use super::RedisCoordination;
use super::reply::Reply;

impl RedisCoordination {
    fn login_key(&self, subject: &str) -> String {
        format!("{}:admin:login:{{{}}}", self.settings.prefix, hex(&Sha256::digest(subject.as_bytes())))
    }
}

#[async_trait]
impl LoginThrottle for RedisCoordination {
    async fn count_attempt(&self, subject: &str, window: Duration) -> Result<FailureCount, CoordinationError> {
        let script = &self.scripts.login_count;
        let value = script
            .call()
            .key(self.login_key(subject))
            .arg(duration_millis(window).max(1))
            .invoke(&self.connection)
            .await?;
        let mut reply = Reply::new(script.name, value)?;
        let failures = reply.u32()?;
        let resets_in = Duration::from_millis(reply.u64()?);
        Ok(FailureCount { failures, resets_in })
    }

    async fn uncount_attempt(&self, subject: &str) -> Result<(), CoordinationError> {
        let script = &self.scripts.login_uncount;
        script.call().key(self.login_key(subject)).invoke(&self.connection).await.map(drop)
    }

    async fn claim_once(&self, marker: &str, ttl: Duration) -> Result<bool, CoordinationError> {
        let key = format!("{}:admin:once:{{{}}}", self.settings.prefix, hex(&Sha256::digest(marker.as_bytes())));
        let mut set = ::redis::cmd("SET");
        set.arg(&key).arg(1).arg("PX").arg(duration_millis(ttl).max(1)).arg("NX");
        let claimed: Option<String> = self.connection.query(&set).await?;
        Ok(claimed.is_some())
    }
}
