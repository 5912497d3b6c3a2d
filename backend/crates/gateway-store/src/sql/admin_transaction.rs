//! [`UnitOfWork`] and [`SqlAdminTransaction`]: admin mutations in one database transaction whose
//! commit bumps `config_revision` and writes the audit row, in the same transaction. Dropping the
//! value rolls back. One implementation for both databases; each mutation is its aggregate's
//! (`sql/<aggregate>.rs`).

use std::sync::Arc;

use async_trait::async_trait;

use gateway_admin::admin_user::{AdminApiKey, AdminUserId, NewAdminUser, PasswordHash, TotpChange};
use gateway_admin::alert_settings::{AlertRule, AlertWebhookId, AlertWebhookWrite};
use gateway_admin::audit::AuditEntry;
use gateway_admin::backup::BackupSettingsUpdate;
use gateway_admin::ports::{
    AccountImport, AdminTransaction, ClientKeyChanges, CommitReceipt, GroupChanges, ImportOutcome, NewClientKey,
    UnitOfWork,
};
use gateway_core::domain::{
    AccountId, ClientKeyId, ConfigRevision, CredentialRevision, EgressProxy, GroupId, KeyScope, RuntimeSettings,
    SchedulingFacts,
};
use gateway_core::ports::{CredentialWrite, StorageError};

use crate::crypto::Keyring;
use crate::row_columns::RowColumns;
use crate::sql::store::{SqlStore, missing_key};
use crate::sql::{Dialect, Sql, Statement};

const BUMP_REVISION: Sql = Sql::same(
    "UPDATE runtime_settings SET config_revision = config_revision + 1 WHERE id = 1 RETURNING config_revision",
);

pub struct SqlAdminTransaction<D: sqlx::Database> {
    tx: sqlx::Transaction<'static, D>,
    keyring: Option<Arc<Keyring>>,
}

impl<D: sqlx::Database> std::fmt::Debug for SqlAdminTransaction<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlAdminTransaction").field("database", &D::NAME).finish_non_exhaustive()
    }
}

#[async_trait]
impl<D: Dialect> UnitOfWork for SqlStore<D> {
    async fn begin(&self) -> Result<Box<dyn AdminTransaction>, StorageError> {
        let tx = self.writer().begin().await.map_err(D::storage_error)?;
        Ok(Box::new(SqlAdminTransaction { tx, keyring: self.keyring.clone() }))
    }
}

#[async_trait]
impl<D: Dialect> AdminTransaction for SqlAdminTransaction<D> {
    async fn import_account(&mut self, import: AccountImport) -> Result<ImportOutcome, StorageError> {
        let keyring = self.keyring.clone();
        let keyring = keyring.as_deref().ok_or_else(missing_key)?;
        crate::sql::accounts::import::<D>(&mut self.tx, keyring, &import).await
    }

    async fn replace_account_credential(
        &mut self,
        account: AccountId,
        expected: CredentialRevision,
        write: CredentialWrite,
    ) -> Result<CredentialRevision, StorageError> {
        let keyring = self.keyring.clone();
        let keyring = keyring.as_deref().ok_or_else(missing_key)?;
        crate::sql::credentials::write_credential_cas::<D>(&mut self.tx, keyring, account, expected, &write).await
    }

    async fn update_account_scheduling(
        &mut self,
        account: AccountId,
        scheduling: &SchedulingFacts,
    ) -> Result<(), StorageError> {
        crate::sql::accounts::update_scheduling::<D>(&mut self.tx, account, scheduling).await
    }

    async fn replace_account_groups(&mut self, account: AccountId, groups: &[GroupId]) -> Result<(), StorageError> {
        crate::sql::accounts::replace_groups::<D>(&mut self.tx, account, groups).await
    }

    async fn delete_account(&mut self, account: AccountId) -> Result<(), StorageError> {
        crate::sql::accounts::delete::<D>(&mut self.tx, account).await
    }

    async fn set_account_egress_proxy(
        &mut self,
        account: AccountId,
        proxy: Option<&EgressProxy>,
    ) -> Result<(), StorageError> {
        let keyring = self.keyring.clone();
        let keyring = keyring.as_deref().ok_or_else(missing_key)?;
        crate::sql::egress_proxies::set_account_proxy::<D>(&mut self.tx, keyring, account, proxy).await
    }

    async fn set_group_egress_proxy(
        &mut self,
        group: GroupId,
        proxy: Option<&EgressProxy>,
    ) -> Result<(), StorageError> {
        let keyring = self.keyring.clone();
        let keyring = keyring.as_deref().ok_or_else(missing_key)?;
        crate::sql::egress_proxies::set_group_proxy::<D>(&mut self.tx, keyring, group, proxy).await
    }

    async fn create_group(&mut self, group: &GroupChanges) -> Result<GroupId, StorageError> {
        crate::sql::groups::create::<D>(&mut self.tx, group).await
    }

    async fn update_group(&mut self, group: GroupId, changes: &GroupChanges) -> Result<(), StorageError> {
        crate::sql::groups::update::<D>(&mut self.tx, group, changes).await
    }

    async fn replace_group_members(&mut self, group: GroupId, accounts: &[AccountId]) -> Result<(), StorageError> {
        crate::sql::groups::replace_members::<D>(&mut self.tx, group, accounts).await
    }

    async fn delete_group(&mut self, group: GroupId) -> Result<(), StorageError> {
        crate::sql::groups::delete::<D>(&mut self.tx, group).await
    }

    async fn create_client_key(&mut self, key: &NewClientKey) -> Result<ClientKeyId, StorageError> {
        crate::sql::client_keys::create::<D>(&mut self.tx, key).await
    }

    async fn update_client_key(&mut self, key: ClientKeyId, changes: &ClientKeyChanges) -> Result<(), StorageError> {
        crate::sql::client_keys::update::<D>(&mut self.tx, key, changes).await
    }

    async fn replace_client_key_groups(
        &mut self,
        key: ClientKeyId,
        groups: &[GroupId],
    ) -> Result<KeyScope, StorageError> {
        crate::sql::client_keys::replace_groups::<D>(&mut self.tx, key, groups).await
    }

    async fn delete_client_key(&mut self, key: ClientKeyId) -> Result<(), StorageError> {
        crate::sql::client_keys::delete::<D>(&mut self.tx, key).await
    }

    async fn create_admin_user(&mut self, user: &NewAdminUser) -> Result<AdminUserId, StorageError> {
        crate::sql::admin_users::create_admin_user::<D>(&mut self.tx, user).await
    }

    async fn set_admin_password(&mut self, user: AdminUserId, hash: &PasswordHash) -> Result<(), StorageError> {
        crate::sql::admin_users::set_password::<D>(&mut self.tx, user, hash).await
    }

    async fn set_admin_api_key(&mut self, user: AdminUserId, key: Option<&AdminApiKey>) -> Result<(), StorageError> {
        crate::sql::admin_users::set_api_key::<D>(&mut self.tx, user, key).await
    }

    async fn set_admin_totp(&mut self, user: AdminUserId, change: TotpChange<'_>) -> Result<(), StorageError> {
        let keyring = self.keyring.clone();
        crate::sql::admin_users::set_totp::<D>(&mut self.tx, keyring.as_deref(), user, change).await
    }

    async fn update_runtime_settings(&mut self, settings: &RuntimeSettings) -> Result<(), StorageError> {
        crate::sql::settings::update_runtime_settings::<D>(&mut self.tx, settings).await
    }

    async fn update_backup_settings(&mut self, update: &BackupSettingsUpdate) -> Result<(), StorageError> {
        let keyring = self.keyring.clone();
        crate::sql::settings::update_backup_settings::<D>(&mut self.tx, keyring.as_deref(), update).await
    }

    async fn create_alert_webhook(&mut self, webhook: &AlertWebhookWrite) -> Result<AlertWebhookId, StorageError> {
        let keyring = self.keyring.clone();
        crate::sql::alert_settings::create_webhook::<D>(&mut self.tx, keyring.as_deref(), webhook).await
    }

    async fn update_alert_webhook(
        &mut self,
        id: AlertWebhookId,
        webhook: &AlertWebhookWrite,
    ) -> Result<(), StorageError> {
        let keyring = self.keyring.clone();
        crate::sql::alert_settings::update_webhook::<D>(&mut self.tx, keyring.as_deref(), id, webhook).await
    }

    async fn delete_alert_webhook(&mut self, id: AlertWebhookId) -> Result<(), StorageError> {
        crate::sql::alert_settings::delete_webhook::<D>(&mut self.tx, id).await
    }

    async fn update_alert_rule(&mut self, rule: &AlertRule) -> Result<(), StorageError> {
        crate::sql::alert_settings::update_rule::<D>(&mut self.tx, rule).await
    }

    async fn commit(mut self: Box<Self>, entry: AuditEntry) -> Result<CommitReceipt, StorageError> {
        let row = Statement::<D>::new(&BUMP_REVISION).fetch_one(&mut *self.tx).await?;
        let config_revision = ConfigRevision(row.col("config_revision")?);
        let audit_event_id = crate::sql::audit::append::<D>(&mut self.tx, &entry, config_revision).await?;
        self.tx.commit().await.map_err(D::storage_error)?;
        Ok(CommitReceipt { config_revision, audit_event_id })
    }

    async fn rollback(self: Box<Self>) -> Result<(), StorageError> {
        self.tx.rollback().await.map_err(D::storage_error)
    }
}
