//! Builders for domain values used across the tests.

use std::collections::BTreeMap;

use gateway_core::domain::*;
use gateway_core::ports::SnapshotFacts;
use time::OffsetDateTime;

pub fn account(id: i64, provider: ProviderKind) -> AccountRecord {
    let now = OffsetDateTime::now_utc();
    AccountRecord {
        id: AccountId(id),
        provider,
        external_account_id: format!("acct-{id}"),
        profile: AccountProfile { email: Some(format!("user{id}@example.com")), plan_type: Some("pro".to_owned()) },
        scheduling: SchedulingFacts::default(),
        credential_revision: CredentialRevision(1),
        credential: CredentialSlot::Available(CredentialDocument::new(format!("{{\"access_token\":\"at-{id}\"}}"))),
        credential_facts: CredentialFacts::active(None, None),
        quota_revision: QuotaRevision(0),
        quota: QuotaFacts::default(),
        provider_data: ProviderData::default(),
        egress_proxy: None,
        created_at: now,
        updated_at: now,
    }
}

pub fn key(id: i64, plaintext: &str, scope: KeyScope) -> ClientKeyRecord {
    let now = OffsetDateTime::now_utc();
    ClientKeyRecord {
        id: ClientKeyId(id),
        name: format!("key {id}"),
        key_hash: ClientKeyHash::of(plaintext),
        key_prefix: plaintext.chars().take(8).collect(),
        enabled: true,
        expires_at: None,
        limits: ClientKeyLimits::default(),
        allowed_models: None,
        scope,
        service_tier_policy: ServiceTierPolicy::Allow,
        created_at: now,
        updated_at: now,
    }
}

pub fn group(id: i64, enabled: bool, members: &[i64]) -> AccountGroup {
    let now = OffsetDateTime::now_utc();
    AccountGroup {
        id: GroupId(id),
        name: format!("group {id}"),
        description: String::new(),
        enabled,
        account_ids: members.iter().map(|m| AccountId(*m)).collect(),
        egress_proxy: None,
        created_at: now,
        updated_at: now,
    }
}

pub fn facts(accounts: Vec<AccountRecord>, groups: Vec<AccountGroup>, keys: Vec<ClientKeyRecord>) -> SnapshotFacts {
    SnapshotFacts {
        config_revision: ConfigRevision(7),
        settings: RuntimeSettings { model_aliases: BTreeMap::new(), ..RuntimeSettings::default() },
        accounts,
        groups,
        client_keys: keys,
    }
}
