//! Contract: continuation pins are owned by one client key and fail closed for others.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_core::coordination::{ContinuationPin, Coordination, PinLookup, PinScope, PinWrite};
use gateway_core::domain::{AccountId, ClientKeyId, GroupId, ProviderKind};
use test_support::wait_until;

use super::fixtures::EXPIRY_DEADLINE;

fn pin(owner: i64) -> ContinuationPin {
    ContinuationPin {
        client_key: ClientKeyId(owner),
        scope: PinScope::Groups(vec![GroupId(3), GroupId(9)]),
        provider: ProviderKind::Openai,
        account: AccountId(42),
        upstream_response_id: Some(b"resp_\x00\xffupstream".to_vec()),
    }
}

pub async fn continuation_pins_fail_closed_for_other_keys<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let id: &[u8] = b"resp_opaque\x00\xfe bytes";
    let ttl = Duration::from_secs(600);
    ensure!(port.lookup(id, ClientKeyId(1)).await? == PinLookup::NotFound, "nothing pinned yet");
    ensure!(port.pin(id, &pin(1), ttl).await? == PinWrite::Written, "pinned");
    ensure!(port.lookup(id, ClientKeyId(1)).await? == PinLookup::Found(pin(1)), "owner reads it back exactly");
    ensure!(port.lookup(id, ClientKeyId(2)).await? == PinLookup::NotYours, "another key is refused");
    ensure!(port.pin(id, &pin(2), ttl).await? == PinWrite::Conflict, "another key cannot overwrite");
    ensure!(!port.unpin(id, ClientKeyId(2)).await?, "another key cannot delete");

    let mut all = pin(1);
    all.scope = PinScope::All;
    all.upstream_response_id = None;
    all.provider = ProviderKind::Xai;
    ensure!(port.pin(id, &all, ttl).await? == PinWrite::Written, "the owner may replace its pin");
    ensure!(port.lookup(id, ClientKeyId(1)).await? == PinLookup::Found(all), "replaced, optional id absent");
    ensure!(port.unpin(id, ClientKeyId(1)).await?, "owner deletes");
    ensure!(port.lookup(id, ClientKeyId(1)).await? == PinLookup::NotFound, "gone");
    Ok(())
}

pub async fn continuation_pins_expire<C: Coordination>(port: Arc<C>) -> anyhow::Result<()> {
    let id: &[u8] = b"resp_short";
    ensure!(port.pin(id, &pin(1), Duration::from_millis(200)).await? == PinWrite::Written, "pinned");
    wait_until("the pin to expire", EXPIRY_DEADLINE, || async {
        matches!(port.lookup(id, ClientKeyId(1)).await, Ok(PinLookup::NotFound)).then_some(())
    })
    .await?;
    ensure!(port.pin(id, &pin(2), Duration::from_secs(60)).await? == PinWrite::Written, "an expired pin is free");
    Ok(())
}
