//! What a storage adapter must offer the suite, and the builders the contract tests share.

use async_trait::async_trait;
use gateway_admin::audit::{AuditActor, AuditEntry};
use gateway_admin::ports::{
    AccountDirectory, AccountImport, AdminUsers, AlertSettings, AuditSearch, AuditTrail, BackupJobs, ClientKeyChanges,
    ClientKeyDirectory, GroupChanges, GroupDirectory, ImportOutcome, NewClientKey, OpsEventQueries,
    RuntimeSettingsReader, UnitOfWork, UsageQueries,
};
use gateway_core::domain::{
    AccountProfile, ClientKeyLimits, ClientKeySecret, CredentialDocument, CredentialFacts, ProviderData, ProviderKind,
    ServiceTierPolicy,
};
use gateway_core::ports::{CookieJarStore, CredentialStore, OpsEventLog, QuotaStore, RequestLog, SnapshotSource};
use gateway_store::crypto::Keyring;

/// Every storage port the contract covers, on one cloneable store.
pub trait Storage:
    SnapshotSource
    + CookieJarStore
    + CredentialStore
    + QuotaStore
    + RequestLog
    + OpsEventLog
    + UnitOfWork
    + AccountDirectory
    + GroupDirectory
    + ClientKeyDirectory
    + RuntimeSettingsReader
    + AuditTrail
    + AdminUsers
    + AlertSettings
    + OpsEventQueries
    + AuditSearch
    + BackupJobs
    + UsageQueries
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<T> Storage for T where
    T: SnapshotSource
        + CookieJarStore
        + CredentialStore
        + QuotaStore
        + RequestLog
        + OpsEventLog
        + UnitOfWork
        + AccountDirectory
        + GroupDirectory
        + ClientKeyDirectory
        + RuntimeSettingsReader
        + AuditTrail
        + AdminUsers
        + AlertSettings
        + OpsEventQueries
        + AuditSearch
        + BackupJobs
        + AuditSearch
        + BackupJobs
        + UsageQueries
        + Clone
        + Send
        + Sync
        + 'static
{
}

/// A fresh, migrated store whose keyring's current key is `k1`, and its clean-up.
#[async_trait]
pub trait Harness: Send + Sync + Sized + 'static {
    type Store: Storage;
    fn store(&self) -> Self::Store;
    /// The same data through another keyring (`None`: no keyring at all).
    async fn reopen(&self, keyring: Option<Keyring>) -> anyhow::Result<Self::Store>;
    async fn close(&self, store: Self::Store);
    async fn finish(self) -> anyhow::Result<()>;
}

pub fn credential(token: &str) -> CredentialDocument {
    CredentialDocument::new(format!("{{\"access_token\":\"{token}\",\"refresh_token\":\"{token}-refresh\"}}"))
}

pub fn account_import(external_id: &str, token: &str) -> AccountImport {
    AccountImport {
        provider: ProviderKind::Openai,
        external_account_id: external_id.to_owned(),
        profile: AccountProfile { email: Some(format!("{external_id}@example.com")), plan_type: Some("plus".into()) },
        document: credential(token),
        facts: CredentialFacts::active(None, None),
        provider_data: ProviderData::default(),
    }
}

/// Imports an OpenAI account through a committed unit of work.
pub async fn import(store: &impl Storage, external_id: &str, token: &str) -> anyhow::Result<ImportOutcome> {
    let mut tx = store.begin().await?;
    let outcome = tx.import_account(account_import(external_id, token)).await?;
    tx.commit(audit("account.import", "account")).await?;
    Ok(outcome)
}

pub fn audit(action: &str, target_kind: &str) -> AuditEntry {
    AuditEntry::new(
        AuditActor { user_id: None, name: "test".to_owned() },
        action,
        target_kind,
        None,
        serde_json::json!({}),
    )
}

pub fn group(name: &str) -> GroupChanges {
    GroupChanges { name: name.to_owned(), description: "d".to_owned(), enabled: true }
}

pub fn new_key(name: &str) -> NewClientKey {
    let secret = ClientKeySecret::new(format!("sk-sb-{name}-0123456789abcdef"));
    NewClientKey {
        key_hash: secret.hash(),
        key_prefix: secret.display_prefix(),
        changes: ClientKeyChanges {
            name: name.to_owned(),
            enabled: true,
            expires_at: None,
            limits: ClientKeyLimits { max_concurrency: Some(2), ..ClientKeyLimits::default() },
            allowed_models: None,
            service_tier_policy: ServiceTierPolicy::Allow,
        },
    }
}

/// Now, at the microsecond precision both adapters store.
pub fn now() -> time::OffsetDateTime {
    let now = time::OffsetDateTime::now_utc();
    now.replace_nanosecond(now.nanosecond() / 1_000 * 1_000).unwrap_or(now)
}

/// One attempt of a request, with `number` and a fixed time; `attempt_json` is its row shape.
pub fn attempt(number: u32) -> gateway_core::domain::Attempt {
    use gateway_core::domain::{AccountId, Attempt, AttemptOutcome, ProviderKind, SendState};
    use gateway_core::fault::Fault;
    Attempt {
        number,
        provider: ProviderKind::Openai,
        account: AccountId(4),
        started_at: time::OffsetDateTime::from_unix_timestamp(1_800_000_000).expect("a valid time"),
        duration_ms: Some(12),
        outcome: AttemptOutcome::Failed(Fault::UpstreamUnavailable),
        http_status: Some(503),
        send_state: SendState::Sent,
    }
}

/// The stored JSON of [`attempt`]`(number)`.
pub fn attempt_json(number: u32) -> serde_json::Value {
    serde_json::json!({
        "n": number, "provider": "openai", "accountId": 4, "startedAt": 1_800_000_000_000_i64, "durationMs": 12,
        "outcome": "upstream_unavailable", "httpStatus": 503, "sendState": "sent"
    })
}

/// A quota window as the OpenAI provider reports the 5-hour one.
pub fn quota_window(used_percent: f64) -> gateway_core::domain::QuotaWindow {
    gateway_core::domain::QuotaWindow {
        name: "primary".to_owned(),
        used_percent,
        window_minutes: Some(300),
        reset_at: Some(1_800_000_000),
        plan_type: Some("plus".to_owned()),
    }
}
