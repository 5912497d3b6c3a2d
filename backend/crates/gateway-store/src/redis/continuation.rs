//! `ContinuationPins` over one hash per response id (`P:pin:{sha256(id)}`).

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{ContinuationPin, ContinuationPins, CoordinationError, PinLookup, PinScope, PinWrite};
use gateway_core::domain::{AccountId, ClientKeyId, GroupId, ProviderKind};

use super::RedisCoordination;
use super::reply::Reply;

#[async_trait]
impl ContinuationPins for RedisCoordination {
    async fn pin(
        &self,
        response_id: &[u8],
        pin: &ContinuationPin,
        ttl: Duration,
    ) -> Result<PinWrite, CoordinationError> {
        let script = &self.scripts.pin_write;
        let value = script
            .call()
            .key(self.keys.pin(response_id))
            .arg(pin.client_key.to_string())
            .arg(encode_scope(&pin.scope))
            .arg(pin.provider.as_str())
            .arg(pin.account.to_string())
            .arg(if pin.upstream_response_id.is_some() { "1" } else { "0" })
            .arg(pin.upstream_response_id.as_deref().unwrap_or_default())
            .arg(duration_millis(ttl).max(1))
            .invoke(&self.connection)
            .await?;
        let mut reply = Reply::new(script.name, value)?;
        let outcome = reply.text()?;
        match outcome.as_str() {
            "written" => Ok(PinWrite::Written),
            "conflict" => Ok(PinWrite::Conflict),
            other => Err(reply.unknown(other)),
        }
    }

    async fn lookup(&self, response_id: &[u8], client_key: ClientKeyId) -> Result<PinLookup, CoordinationError> {
        let script = &self.scripts.pin_read;
        let value =
            script.call().key(self.keys.pin(response_id)).arg(client_key.to_string()).invoke(&self.connection).await?;
        let mut reply = Reply::new(script.name, value)?;
        let outcome = reply.text()?;
        match outcome.as_str() {
            "missing" => Ok(PinLookup::NotFound),
            "not_yours" => Ok(PinLookup::NotYours),
            "found" => {
                let scope = reply.text()?;
                let provider = reply.text()?;
                let account = reply.i64()?;
                let has_upstream = reply.text()? == "1";
                let upstream = reply.bytes()?;
                let corrupt = |what: &str| CoordinationError::Protocol(format!("continuation pin has a bad {what}"));
                Ok(PinLookup::Found(ContinuationPin {
                    client_key,
                    scope: decode_scope(&scope).ok_or_else(|| corrupt("scope"))?,
                    provider: provider.parse::<ProviderKind>().map_err(|_| corrupt("provider"))?,
                    account: AccountId(account),
                    upstream_response_id: has_upstream.then_some(upstream),
                }))
            }
            other => Err(reply.unknown(other)),
        }
    }

    async fn unpin(&self, response_id: &[u8], client_key: ClientKeyId) -> Result<bool, CoordinationError> {
        let script = &self.scripts.pin_delete;
        let value =
            script.call().key(self.keys.pin(response_id)).arg(client_key.to_string()).invoke(&self.connection).await?;
        Ok(Reply::new(script.name, value)?.text()? == "deleted")
    }
}

fn encode_scope(scope: &PinScope) -> String {
    match scope {
        PinScope::All => "all".to_owned(),
        PinScope::Groups(groups) => {
            let ids: Vec<String> = groups.iter().map(ToString::to_string).collect();
            format!("groups:{}", ids.join(","))
        }
    }
}

fn decode_scope(text: &str) -> Option<PinScope> {
    if text == "all" {
        return Some(PinScope::All);
    }
    let list = text.strip_prefix("groups:")?;
    if list.is_empty() {
        return Some(PinScope::Groups(Vec::new()));
    }
    list.split(',').map(|id| id.parse::<i64>().ok().map(GroupId)).collect::<Option<Vec<_>>>().map(PinScope::Groups)
}
