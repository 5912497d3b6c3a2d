//! A [`UnitOfWork`] decorator that publishes each committed `config_revision` through the
//! [`ChangeNotifier`], so other replicas reload their snapshot sooner. Reconciliation remains
//! the correctness path: a failed publish is logged and otherwise ignored.

use std::sync::Arc;

use async_trait::async_trait;

use gateway_core::coordination::ChangeNotifier;
use gateway_core::domain::{
    AccountId, ClientKeyId, CredentialRevision, EgressProxy, GroupId, KeyScope, RuntimeSettings, SchedulingFacts,
};
use gateway_core::ports::{CredentialWrite, StorageError};

use crate::admin_user::{AdminApiKey, AdminUserId, NewAdminUser, PasswordHash, TotpChange};
use crate::alert_settings::{AlertRule, AlertWebhookId, AlertWebhookWrite};
use crate::audit::AuditEntry;
use crate::backup::BackupSettingsUpdate;
use crate::ports::{
    AccountImport, AdminTransaction, ClientKeyChanges, CommitReceipt, GroupChanges, ImportOutcome, NewClientKey,
    UnitOfWork,
};

pub struct PublishingUnitOfWork {
    inner: Arc<dyn UnitOfWork>,
    notifier: Arc<dyn ChangeNotifier>,
}

impl PublishingUnitOfWork {
    pub fn new(inner: Arc<dyn UnitOfWork>, notifier: Arc<dyn ChangeNotifier>) -> Self {
        Self { inner, notifier }
    }
}

#[async_trait]
impl UnitOfWork for PublishingUnitOfWork {
    async fn begin(&self) -> Result<Box<dyn AdminTransaction>, StorageError> {
        let inner = self.inner.begin().await?;
        Ok(Box::new(PublishingTransaction { inner, notifier: self.notifier.clone() }))
    }
}

struct PublishingTransaction {
    inner: Box<dyn AdminTransaction>,
    notifier: Arc<dyn ChangeNotifier>,
}

#[async_trait]
impl AdminTransaction for PublishingTransaction {
    async fn import_account(&mut self, import: AccountImport) -> Result<ImportOutcome, StorageError> {
        self.inner.import_account(import).await
    }

    async fn replace_account_credential(
        &mut self,
        account: AccountId,
        expected: CredentialRevision,
        write: CredentialWrite,
    ) -> Result<CredentialRevision, StorageError> {
        self.inner.replace_account_credential(account, expected, write).await
    }

    async fn update_account_scheduling(
        &mut self,
        account: AccountId,
        scheduling: &SchedulingFacts,
    ) -> Result<(), StorageError> {
        self.inner.update_account_scheduling(account, scheduling).await
    }

    async fn set_account_egress_proxy(
        &mut self,
        account: AccountId,
        proxy: Option<&EgressProxy>,
    ) -> Result<(), StorageError> {
        self.inner.set_account_egress_proxy(account, proxy).await
    }

    async fn set_group_egress_proxy(
        &mut self,
        group: GroupId,
        proxy: Option<&EgressProxy>,
    ) -> Result<(), StorageError> {
        self.inner.set_group_egress_proxy(group, proxy).await
    }

    async fn replace_account_groups(&mut self, account: AccountId, groups: &[GroupId]) -> Result<(), StorageError> {
        self.inner.replace_account_groups(account, groups).await
    }

    async fn delete_account(&mut self, account: AccountId) -> Result<(), StorageError> {
        self.inner.delete_account(account).await
    }

    async fn create_group(&mut self, group: &GroupChanges) -> Result<GroupId, StorageError> {
        self.inner.create_group(group).await
    }

    async fn update_group(&mut self, group: GroupId, changes: &GroupChanges) -> Result<(), StorageError> {
        self.inner.update_group(group, changes).await
    }

    async fn replace_group_members(&mut self, group: GroupId, accounts: &[AccountId]) -> Result<(), StorageError> {
        self.inner.replace_group_members(group, accounts).await
    }

    async fn delete_group(&mut self, group: GroupId) -> Result<(), StorageError> {
        self.inner.delete_group(group).await
    }

    async fn create_client_key(&mut self, key: &NewClientKey) -> Result<ClientKeyId, StorageError> {
        self.inner.create_client_key(key).await
    }

    async fn update_client_key(&mut self, key: ClientKeyId, changes: &ClientKeyChanges) -> Result<(), StorageError> {
        self.inner.update_client_key(key, changes).await
    }

    async fn replace_client_key_groups(
        &mut self,
        key: ClientKeyId,
        groups: &[GroupId],
    ) -> Result<KeyScope, StorageError> {
        self.inner.replace_client_key_groups(key, groups).await
    }

    async fn delete_client_key(&mut self, key: ClientKeyId) -> Result<(), StorageError> {
        self.inner.delete_client_key(key).await
    }

    async fn create_admin_user(&mut self, user: &NewAdminUser) -> Result<AdminUserId, StorageError> {
        self.inner.create_admin_user(user).await
    }

    async fn set_admin_password(&mut self, user: AdminUserId, hash: &PasswordHash) -> Result<(), StorageError> {
        self.inner.set_admin_password(user, hash).await
    }

    async fn set_admin_api_key(&mut self, user: AdminUserId, key: Option<&AdminApiKey>) -> Result<(), StorageError> {
        self.inner.set_admin_api_key(user, key).await
    }

    async fn set_admin_totp(&mut self, user: AdminUserId, change: TotpChange<'_>) -> Result<(), StorageError> {
        self.inner.set_admin_totp(user, change).await
    }

    async fn update_runtime_settings(&mut self, settings: &RuntimeSettings) -> Result<(), StorageError> {
        self.inner.update_runtime_settings(settings).await
    }

    async fn update_backup_settings(&mut self, update: &BackupSettingsUpdate) -> Result<(), StorageError> {
        self.inner.update_backup_settings(update).await
    }

    async fn create_alert_webhook(&mut self, webhook: &AlertWebhookWrite) -> Result<AlertWebhookId, StorageError> {
        self.inner.create_alert_webhook(webhook).await
    }

    async fn update_alert_webhook(
        &mut self,
        id: AlertWebhookId,
        webhook: &AlertWebhookWrite,
    ) -> Result<(), StorageError> {
        self.inner.update_alert_webhook(id, webhook).await
    }

    async fn delete_alert_webhook(&mut self, id: AlertWebhookId) -> Result<(), StorageError> {
        self.inner.delete_alert_webhook(id).await
    }

    async fn update_alert_rule(&mut self, rule: &AlertRule) -> Result<(), StorageError> {
        self.inner.update_alert_rule(rule).await
    }

    async fn commit(self: Box<Self>, audit: AuditEntry) -> Result<CommitReceipt, StorageError> {
        let receipt = self.inner.commit(audit).await?;
        if let Err(error) = self.notifier.publish_config_revision(receipt.config_revision.0).await {
            tracing::warn!(%error, revision = receipt.config_revision.0, "config revision not published; replicas reconcile by polling");
        }
        Ok(receipt)
    }

    async fn rollback(self: Box<Self>) -> Result<(), StorageError> {
        self.inner.rollback().await
    }
}
