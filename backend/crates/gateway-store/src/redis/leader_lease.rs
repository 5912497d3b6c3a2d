//! `Leases` over `P:lease:{name}` (value `holder|token`, PX ttl) and its fence counter
//! `P:lease:{name}:fence`; period leases are `P:lease:{task}:period:<index>`.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::leader_lease::PeriodClaim;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{CoordinationError, FenceToken, Lease, LeaseStatus, Leases, ReplicaId};

use super::RedisCoordination;
use super::acquire::lease_status;
use super::reply::Reply;

fn lease_value(lease: &Lease) -> String {
    format!("{}|{}", lease.holder, lease.token)
}

fn positive_millis(ttl: Duration) -> Result<u64, CoordinationError> {
    match duration_millis(ttl) {
        0 => Err(CoordinationError::InvalidInput("lease TTL/period must be at least 1 ms".to_owned())),
        ms => Ok(ms),
    }
}

#[async_trait]
impl Leases for RedisCoordination {
    async fn try_acquire_lease(
        &self,
        name: &str,
        holder: &ReplicaId,
        ttl: Duration,
    ) -> Result<Option<Lease>, CoordinationError> {
        let script = &self.scripts.lease_acquire;
        let value = script
            .call()
            .key(self.keys.lease(name)?)
            .key(self.keys.lease_fence(name)?)
            .arg(holder.0.as_str())
            .arg(positive_millis(ttl)?)
            .invoke(&self.connection)
            .await?;
        let mut reply = Reply::new(script.name, value)?;
        let outcome = reply.text()?;
        match outcome.as_str() {
            "acquired" => {
                Ok(Some(Lease { name: name.to_owned(), holder: holder.clone(), token: FenceToken(reply.u64()?) }))
            }
            "taken" => Ok(None),
            other => Err(reply.unknown(other)),
        }
    }

    async fn renew_lease(&self, lease: &Lease, ttl: Duration) -> Result<LeaseStatus, CoordinationError> {
        let script = &self.scripts.lease_renew;
        let value = script
            .call()
            .key(self.keys.lease(&lease.name)?)
            .arg(lease_value(lease))
            .arg(positive_millis(ttl)?)
            .invoke(&self.connection)
            .await?;
        lease_status(&mut Reply::new(script.name, value)?)
    }

    async fn release_lease(&self, lease: &Lease) -> Result<LeaseStatus, CoordinationError> {
        let script = &self.scripts.lease_release;
        let value =
            script.call().key(self.keys.lease(&lease.name)?).arg(lease_value(lease)).invoke(&self.connection).await?;
        lease_status(&mut Reply::new(script.name, value)?)
    }

    async fn check_lease(&self, lease: &Lease) -> Result<LeaseStatus, CoordinationError> {
        let mut cmd = ::redis::cmd("GET");
        cmd.arg(self.keys.lease(&lease.name)?);
        let current: Option<String> = self.connection.query(&cmd).await?;
        Ok(if current.as_deref() == Some(lease_value(lease).as_str()) { LeaseStatus::Held } else { LeaseStatus::Lost })
    }

    async fn claim_period(
        &self,
        task: &str,
        period: Duration,
        holder: &ReplicaId,
    ) -> Result<PeriodClaim, CoordinationError> {
        let script = &self.scripts.period_claim;
        let value = script
            .call()
            .key(self.keys.lease_fence(task)?)
            .arg(self.keys.period_base(task)?)
            .arg(positive_millis(period)?)
            .arg(holder.0.as_str())
            .invoke(&self.connection)
            .await?;
        let mut reply = Reply::new(script.name, value)?;
        let outcome = reply.text()?;
        let index = reply.u64()?;
        let next_in = Duration::from_millis(reply.u64()?);
        let token = match outcome.as_str() {
            "won" => Some(FenceToken(reply.u64()?)),
            "taken" => None,
            other => return Err(reply.unknown(other)),
        };
        Ok(PeriodClaim { index, token, next_in })
    }
}
