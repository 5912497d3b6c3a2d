//! [`ClientKeyDirectory`] and the key mutations: the `service_tier_policy` column round trip.

use gateway_admin::ports::{ClientKeyDirectory, UnitOfWork};
use gateway_core::domain::ServiceTierPolicy;

use crate::storage_contract::fixtures::{Harness, audit, new_key};

pub async fn the_service_tier_policy_round_trips_through_create_and_update(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let mut tx = store.begin().await?;
    let plain = tx.create_client_key(&new_key("plain")).await?;
    let mut denied = new_key("denied");
    denied.changes.service_tier_policy = ServiceTierPolicy::Deny;
    let denied_id = tx.create_client_key(&denied).await?;
    tx.commit(audit("client_key.create", "client_key")).await?;
    assert_eq!(store.get_client_key(plain).await?.service_tier_policy, ServiceTierPolicy::Allow);
    assert_eq!(store.get_client_key(denied_id).await?.service_tier_policy, ServiceTierPolicy::Deny);

    for policy in [ServiceTierPolicy::ForcePriority, ServiceTierPolicy::Allow, ServiceTierPolicy::Deny] {
        let mut changes = new_key("plain").changes;
        changes.service_tier_policy = policy;
        let mut tx = store.begin().await?;
        tx.update_client_key(plain, &changes).await?;
        tx.commit(audit("client_key.update", "client_key")).await?;
        let stored = store.get_client_key(plain).await?;
        assert_eq!(stored.service_tier_policy, policy);
        // The other fields of the update land too (the column is not bound in their place).
        assert_eq!(stored.limits.max_concurrency, Some(2));
        assert_eq!(stored.name, "plain");
    }
    let listed = store.list_client_keys().await?;
    let policies: Vec<_> = listed.iter().map(|k| k.service_tier_policy).collect();
    assert_eq!(policies, [ServiceTierPolicy::Deny, ServiceTierPolicy::Deny]);
    h.finish().await
}
