//! In-memory fakes of the ports the key and group services use: one shared world holding keys,
//! groups, the audit rows committed, the transactions opened and the revisions published.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use gateway_admin::admin_user::{AdminApiKey, AdminUserId, NewAdminUser, PasswordHash, TotpChange};
use gateway_admin::alert_settings::{AlertRule, AlertWebhookId, AlertWebhookWrite};
use gateway_admin::audit::AuditEntry;
use gateway_admin::backup::BackupSettingsUpdate;
use gateway_admin::ports::{
    AccountImport, AdminTransaction, ClientKeyChanges, ClientKeyDirectory, CommitReceipt, GroupChanges, GroupDirectory,
    ImportOutcome, NewClientKey, UnitOfWork, UsageQueries,
};
use gateway_admin::usage::{
    BucketWidth, CalendarStarts, OutcomeCounts, RequestCursor, RequestDetail, RequestSummary, UsageBucket,
    UsageDimension, UsageFilter, UsageGroup, UsageTotals,
};
use gateway_core::coordination::{ChangeNotifier, ChangeSubscription, CoordinationError};
use gateway_core::domain::{
    AccountGroup, AccountId, ClientKeyId, ClientKeyRecord, ConfigRevision, CredentialRevision, EgressProxy, GroupId,
    KeyScope, RequestId, RuntimeSettings, SchedulingFacts,
};
use gateway_core::ports::{CredentialWrite, StorageError};
use time::OffsetDateTime;

#[derive(Default)]
pub struct World {
    pub keys: BTreeMap<i64, ClientKeyRecord>,
    pub groups: BTreeMap<i64, AccountGroup>,
    /// Committed audit rows, in order.
    pub audit: Vec<AuditEntry>,
    pub transactions_opened: u32,
    pub published: Vec<i64>,
    revision: i64,
}

/// The store and the notifier over one world.
#[derive(Clone, Default)]
pub struct Fake(Arc<Mutex<World>>);

impl Fake {
    pub fn world(&self) -> MutexGuard<'_, World> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn add_group(&self, id: i64, name: &str) {
        let now = OffsetDateTime::now_utc();
        let group = AccountGroup {
            id: GroupId(id),
            name: name.to_owned(),
            description: String::new(),
            enabled: true,
            account_ids: Vec::new(),
            egress_proxy: None,
            created_at: now,
            updated_at: now,
        };
        self.world().groups.insert(id, group);
    }
}

fn unsupported<T>() -> Result<T, StorageError> {
    Err(StorageError::Internal("not faked".to_owned()))
}

#[async_trait]
impl UnitOfWork for Fake {
    async fn begin(&self) -> Result<Box<dyn AdminTransaction>, StorageError> {
        self.world().transactions_opened += 1;
        Ok(Box::new(FakeTx { world: self.clone(), keys: Vec::new(), deleted_groups: Vec::new() }))
    }
}

/// Buffers its writes; only `commit` applies them.
struct FakeTx {
    world: Fake,
    keys: Vec<ClientKeyRecord>,
    deleted_groups: Vec<GroupId>,
}

#[async_trait]
impl AdminTransaction for FakeTx {
    async fn import_account(&mut self, _: AccountImport) -> Result<ImportOutcome, StorageError> {
        unsupported()
    }
    async fn replace_account_credential(
        &mut self,
        _: AccountId,
        _: CredentialRevision,
        _: CredentialWrite,
    ) -> Result<CredentialRevision, StorageError> {
        unsupported()
    }
    async fn update_account_scheduling(&mut self, _: AccountId, _: &SchedulingFacts) -> Result<(), StorageError> {
        unsupported()
    }
    async fn replace_account_groups(&mut self, _: AccountId, _: &[GroupId]) -> Result<(), StorageError> {
        unsupported()
    }
    async fn delete_account(&mut self, _: AccountId) -> Result<(), StorageError> {
        unsupported()
    }
    async fn set_account_egress_proxy(&mut self, _: AccountId, _: Option<&EgressProxy>) -> Result<(), StorageError> {
        unsupported()
    }
    async fn set_group_egress_proxy(&mut self, _: GroupId, _: Option<&EgressProxy>) -> Result<(), StorageError> {
        unsupported()
    }
    async fn create_group(&mut self, _: &GroupChanges) -> Result<GroupId, StorageError> {
        unsupported()
    }
    async fn update_group(&mut self, _: GroupId, _: &GroupChanges) -> Result<(), StorageError> {
        unsupported()
    }
    async fn replace_group_members(&mut self, _: GroupId, _: &[AccountId]) -> Result<(), StorageError> {
        unsupported()
    }
    async fn delete_group(&mut self, group: GroupId) -> Result<(), StorageError> {
        self.deleted_groups.push(group);
        Ok(())
    }
    async fn create_client_key(&mut self, key: &NewClientKey) -> Result<ClientKeyId, StorageError> {
        let id = {
            let world = self.world.world();
            world.keys.keys().next_back().copied().unwrap_or(0) + 1 + self.keys.len() as i64
        };
        let now = OffsetDateTime::now_utc();
        let c = &key.changes;
        self.keys.push(ClientKeyRecord {
            id: ClientKeyId(id),
            name: c.name.clone(),
            key_hash: key.key_hash,
            key_prefix: key.key_prefix.clone(),
            enabled: c.enabled,
            expires_at: c.expires_at,
            limits: c.limits.clone(),
            allowed_models: c.allowed_models.clone(),
            scope: KeyScope::AllAccounts,
            service_tier_policy: c.service_tier_policy,
            created_at: now,
            updated_at: now,
        });
        Ok(ClientKeyId(id))
    }
    async fn update_client_key(&mut self, _: ClientKeyId, _: &ClientKeyChanges) -> Result<(), StorageError> {
        unsupported()
    }
    async fn replace_client_key_groups(&mut self, _: ClientKeyId, _: &[GroupId]) -> Result<KeyScope, StorageError> {
        unsupported()
    }
    async fn delete_client_key(&mut self, _: ClientKeyId) -> Result<(), StorageError> {
        unsupported()
    }
    async fn create_admin_user(&mut self, _: &NewAdminUser) -> Result<AdminUserId, StorageError> {
        unsupported()
    }
    async fn set_admin_password(&mut self, _: AdminUserId, _: &PasswordHash) -> Result<(), StorageError> {
        unsupported()
    }
    async fn set_admin_api_key(&mut self, _: AdminUserId, _: Option<&AdminApiKey>) -> Result<(), StorageError> {
        unsupported()
    }
    async fn set_admin_totp(&mut self, _: AdminUserId, _: TotpChange<'_>) -> Result<(), StorageError> {
        unsupported()
    }
    async fn update_runtime_settings(&mut self, _: &RuntimeSettings) -> Result<(), StorageError> {
        unsupported()
    }
    async fn update_backup_settings(&mut self, _: &BackupSettingsUpdate) -> Result<(), StorageError> {
        unsupported()
    }
    async fn create_alert_webhook(&mut self, _: &AlertWebhookWrite) -> Result<AlertWebhookId, StorageError> {
        unsupported()
    }
    async fn update_alert_webhook(&mut self, _: AlertWebhookId, _: &AlertWebhookWrite) -> Result<(), StorageError> {
        unsupported()
    }
    async fn delete_alert_webhook(&mut self, _: AlertWebhookId) -> Result<(), StorageError> {
        unsupported()
    }
    async fn update_alert_rule(&mut self, _: &AlertRule) -> Result<(), StorageError> {
        unsupported()
    }

    async fn commit(self: Box<Self>, audit: AuditEntry) -> Result<CommitReceipt, StorageError> {
        let mut world = self.world.world();
        for key in self.keys {
            world.keys.insert(key.id.0, key);
        }
        for group in self.deleted_groups {
            world.groups.remove(&group.0);
        }
        world.audit.push(audit);
        world.revision += 1;
        let audit_event_id = i64::try_from(world.audit.len()).unwrap_or(i64::MAX);
        Ok(CommitReceipt { config_revision: ConfigRevision(world.revision), audit_event_id })
    }

    async fn rollback(self: Box<Self>) -> Result<(), StorageError> {
        Ok(())
    }
}

#[async_trait]
impl ChangeNotifier for Fake {
    async fn publish_config_revision(&self, revision: i64) -> Result<(), CoordinationError> {
        self.world().published.push(revision);
        Ok(())
    }

    async fn subscribe(&self) -> Result<ChangeSubscription, CoordinationError> {
        Err(CoordinationError::Unavailable("not faked".to_owned()))
    }
}

#[async_trait]
impl ClientKeyDirectory for Fake {
    async fn list_client_keys(&self) -> Result<Vec<ClientKeyRecord>, StorageError> {
        Ok(self.world().keys.values().cloned().collect())
    }

    async fn get_client_key(&self, id: ClientKeyId) -> Result<ClientKeyRecord, StorageError> {
        let found = self.world().keys.get(&id.0).cloned();
        found.ok_or(StorageError::NotFound { entity: "client key", id: id.0.to_string() })
    }
}

#[async_trait]
impl GroupDirectory for Fake {
    async fn list_groups(&self) -> Result<Vec<AccountGroup>, StorageError> {
        Ok(self.world().groups.values().cloned().collect())
    }

    async fn get_group(&self, id: GroupId) -> Result<AccountGroup, StorageError> {
        let found = self.world().groups.get(&id.0).cloned();
        found.ok_or(StorageError::NotFound { entity: "group", id: id.0.to_string() })
    }
}

/// No usage recorded yet: empty totals and groups, calendar starts at `now`.
#[async_trait]
impl UsageQueries for Fake {
    async fn list_requests(
        &self,
        _: &UsageFilter,
        _: Option<RequestCursor>,
        _: u32,
    ) -> Result<Vec<RequestSummary>, StorageError> {
        Ok(Vec::new())
    }
    async fn request_detail(&self, id: RequestId) -> Result<RequestDetail, StorageError> {
        Err(StorageError::NotFound { entity: "request", id: id.0.to_string() })
    }
    async fn usage_totals(&self, _: &UsageFilter) -> Result<UsageTotals, StorageError> {
        Ok(UsageTotals::default())
    }
    async fn outcome_counts(&self, _: OffsetDateTime, _: OffsetDateTime) -> Result<OutcomeCounts, StorageError> {
        unsupported()
    }
    async fn usage_groups(&self, _: &UsageFilter, _: UsageDimension, _: u32) -> Result<Vec<UsageGroup>, StorageError> {
        Ok(Vec::new())
    }
    async fn usage_trend(&self, _: &UsageFilter, _: BucketWidth, _: &str) -> Result<Vec<UsageBucket>, StorageError> {
        Ok(Vec::new())
    }
    async fn time_zone_exists(&self, tz: &str) -> Result<bool, StorageError> {
        Ok(tz == "UTC")
    }
    async fn calendar_starts(&self, now: OffsetDateTime, _: &str) -> Result<CalendarStarts, StorageError> {
        Ok(CalendarStarts { day: now, month: now })
    }
    async fn last_used_by_account(&self) -> Result<Vec<(AccountId, OffsetDateTime)>, StorageError> {
        Ok(Vec::new())
    }
}
