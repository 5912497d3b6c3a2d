//! The mutations of one admin unit of work.

use async_trait::async_trait;

use gateway_core::domain::{
    AccountId, ClientKeyId, ConfigRevision, CredentialRevision, EgressProxy, GroupId, KeyScope, RuntimeSettings,
    SchedulingFacts,
};
use gateway_core::ports::{CredentialWrite, StorageError};

use crate::admin_user::{AdminApiKey, AdminUserId, NewAdminUser, PasswordHash, TotpChange};
use crate::alert_settings::{AlertRule, AlertWebhookId, AlertWebhookWrite};
use crate::audit::AuditEntry;
use crate::backup::BackupSettingsUpdate;
use crate::ports::admin_changes::{AccountImport, ClientKeyChanges, GroupChanges, ImportOutcome, NewClientKey};

/// What a successful commit produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommitReceipt {
    /// The global revision after this unit of work.
    pub config_revision: ConfigRevision,
    pub audit_event_id: i64,
}

/// An open database transaction. Nothing is visible to others until [`commit`]; dropping it or
/// a failing commit rolls everything back, including the revision bump and the audit row.
///
/// [`commit`]: AdminTransaction::commit
#[async_trait]
pub trait AdminTransaction: Send {
    // accounts
    async fn import_account(&mut self, import: AccountImport) -> Result<ImportOutcome, StorageError>;
    /// Admin re-authorisation or credential rotation: compare-and-swap on the revision.
    async fn replace_account_credential(
        &mut self,
        account: AccountId,
        expected: CredentialRevision,
        write: CredentialWrite,
    ) -> Result<CredentialRevision, StorageError>;
    async fn update_account_scheduling(
        &mut self,
        account: AccountId,
        scheduling: &SchedulingFacts,
    ) -> Result<(), StorageError>;
    /// Replaces the account's complete group set.
    async fn replace_account_groups(&mut self, account: AccountId, groups: &[GroupId]) -> Result<(), StorageError>;
    async fn delete_account(&mut self, account: AccountId) -> Result<(), StorageError>;
    /// Sets (`None`: clears) the account's egress proxy; the adapter seals the URL.
    async fn set_account_egress_proxy(
        &mut self,
        account: AccountId,
        proxy: Option<&EgressProxy>,
    ) -> Result<(), StorageError>;
    /// Sets (`None`: clears) the group's egress proxy; the adapter seals the URL.
    async fn set_group_egress_proxy(&mut self, group: GroupId, proxy: Option<&EgressProxy>)
    -> Result<(), StorageError>;

    // groups
    async fn create_group(&mut self, group: &GroupChanges) -> Result<GroupId, StorageError>;
    async fn update_group(&mut self, group: GroupId, changes: &GroupChanges) -> Result<(), StorageError>;
    /// Replaces the group's complete member set.
    async fn replace_group_members(&mut self, group: GroupId, accounts: &[AccountId]) -> Result<(), StorageError>;
    /// Refused (`Constraint`, foreign key) while a client key is bound to the group.
    async fn delete_group(&mut self, group: GroupId) -> Result<(), StorageError>;

    // client keys
    async fn create_client_key(&mut self, key: &NewClientKey) -> Result<ClientKeyId, StorageError>;
    async fn update_client_key(&mut self, key: ClientKeyId, changes: &ClientKeyChanges) -> Result<(), StorageError>;
    /// Replaces the key's group set (empty = all accounts); returns the scope before the change
    /// so the audit row can record e.g. `routing_scope: groups -> all`.
    async fn replace_client_key_groups(
        &mut self,
        key: ClientKeyId,
        groups: &[GroupId],
    ) -> Result<KeyScope, StorageError>;
    async fn delete_client_key(&mut self, key: ClientKeyId) -> Result<(), StorageError>;

    // administrators (security configuration)
    /// `Conflict` (`admin_users_username_key`) when the name is taken.
    async fn create_admin_user(&mut self, user: &NewAdminUser) -> Result<AdminUserId, StorageError>;
    async fn set_admin_password(&mut self, user: AdminUserId, hash: &PasswordHash) -> Result<(), StorageError>;
    /// Replaces (or with `None` removes) the user's admin API key.
    async fn set_admin_api_key(&mut self, user: AdminUserId, key: Option<&AdminApiKey>) -> Result<(), StorageError>;

    /// Changes the user's TOTP secret (sealed by the adapter). `Pending` is refused with
    /// `Conflict` while TOTP is enabled.
    async fn set_admin_totp(&mut self, user: AdminUserId, change: TotpChange<'_>) -> Result<(), StorageError>;

    // settings
    async fn update_runtime_settings(&mut self, settings: &RuntimeSettings) -> Result<(), StorageError>;
    async fn update_backup_settings(&mut self, update: &BackupSettingsUpdate) -> Result<(), StorageError>;

    // alerts
    /// Seals the secret (required here); `Conflict` (`alert_webhooks_name_key`) on a taken name.
    async fn create_alert_webhook(&mut self, webhook: &AlertWebhookWrite) -> Result<AlertWebhookId, StorageError>;
    /// Replaces the webhook; `secret: None` keeps the stored one.
    async fn update_alert_webhook(
        &mut self,
        id: AlertWebhookId,
        webhook: &AlertWebhookWrite,
    ) -> Result<(), StorageError>;
    async fn delete_alert_webhook(&mut self, id: AlertWebhookId) -> Result<(), StorageError>;
    async fn update_alert_rule(&mut self, rule: &AlertRule) -> Result<(), StorageError>;

    /// Bumps `runtime_settings.config_revision`, writes the audit row (hash-chained) and commits,
    /// all in this transaction.
    async fn commit(self: Box<Self>, audit: AuditEntry) -> Result<CommitReceipt, StorageError>;

    /// Rolls back explicitly (dropping does the same, without waiting for the server).
    async fn rollback(self: Box<Self>) -> Result<(), StorageError>;
}
