//! [`LoginThrottle`] over Redis: one counter per subject, `P:admin:login:{<sha256 hex>}`, in a
//! fixed window that the first failure opens (`SET NX PX`, then `INCR`); once-markers (a TOTP
//! step used) as `P:admin:once:{<sha256 hex>}` with `SET NX PX`.

use std::time::Duration;

use async_trait::async_trait;
use sha2::{Digest, Sha256};

use gateway_admin::ports::{FailureCount, LoginThrottle};
use gateway_core::coordination::CoordinationError;
use gateway_core::coordination::affinity::hex;
use gateway_core::coordination::time::duration_millis;

use super::RedisCoordination;

impl RedisCoordination {
    fn login_key(&self, subject: &str) -> String {
        format!("{}:admin:login:{{{}}}", self.settings.prefix, hex(&Sha256::digest(subject.as_bytes())))
    }

    async fn remaining(&self, key: &str) -> Result<Duration, CoordinationError> {
        let mut pttl = ::redis::cmd("PTTL");
        pttl.arg(key);
        let ms: i64 = self.connection.query(&pttl).await?;
        Ok(Duration::from_millis(u64::try_from(ms).unwrap_or(0)))
    }
}

#[async_trait]
impl LoginThrottle for RedisCoordination {
    async fn login_failures(&self, subject: &str) -> Result<FailureCount, CoordinationError> {
        let key = self.login_key(subject);
        let mut get = ::redis::cmd("GET");
        get.arg(&key);
        let count: Option<u32> = self.connection.query(&get).await?;
        match count {
            None | Some(0) => Ok(FailureCount { failures: 0, resets_in: Duration::ZERO }),
            Some(failures) => Ok(FailureCount { failures, resets_in: self.remaining(&key).await? }),
        }
    }

    async fn record_login_failure(&self, subject: &str, window: Duration) -> Result<FailureCount, CoordinationError> {
        let key = self.login_key(subject);
        let mut open = ::redis::cmd("SET");
        open.arg(&key).arg(0).arg("PX").arg(duration_millis(window).max(1)).arg("NX");
        self.connection.query::<Option<String>>(&open).await?;
        let mut incr = ::redis::cmd("INCR");
        incr.arg(&key);
        let failures: u32 = self.connection.query(&incr).await?;
        Ok(FailureCount { failures, resets_in: self.remaining(&key).await? })
    }

    async fn clear_login_failures(&self, subject: &str) -> Result<(), CoordinationError> {
        let mut del = ::redis::cmd("DEL");
        del.arg(self.login_key(subject));
        self.connection.query::<i64>(&del).await.map(drop)
    }

    async fn claim_once(&self, marker: &str, ttl: Duration) -> Result<bool, CoordinationError> {
        let key = format!("{}:admin:once:{{{}}}", self.settings.prefix, hex(&Sha256::digest(marker.as_bytes())));
        let mut set = ::redis::cmd("SET");
        set.arg(&key).arg(1).arg("PX").arg(duration_millis(ttl).max(1)).arg("NX");
        let claimed: Option<String> = self.connection.query(&set).await?;
        Ok(claimed.is_some())
    }
}
