//! The one body of the admin unit of work for both SQL adapters: each adapter module invokes
//! [`sql_admin_transaction!`] with its transaction, store and database types; the mutation
//! functions it calls (`account_mutations::…`, `audit::append`, `storage_error`, …) are the
//! invoking module's own, so only the dialect's SQL differs between the adapters.

use gateway_core::ports::StorageError;

pub(crate) fn missing_key() -> StorageError {
    StorageError::Misconfigured("secrets.master_key is not configured".to_owned())
}

/// `sql_admin_transaction!(Transaction, Store, Database, writer_pool_method, "Name")`: the
/// transaction type, its `Debug` (the name only), `UnitOfWork` for the store and
/// `AdminTransaction`, whose commit bumps `config_revision` and writes the audit row in the
/// same transaction. Dropping the value rolls back.
macro_rules! sql_admin_transaction {
    ($transaction:ident, $store:ident, $db:ty, $writer:ident, $name:literal) => {
        pub struct $transaction {
            tx: sqlx::Transaction<'static, $db>,
            keyring: Option<Arc<Keyring>>,
        }

        impl std::fmt::Debug for $transaction {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($name)
            }
        }

        #[async_trait]
        impl UnitOfWork for $store {
            async fn begin(&self) -> Result<Box<dyn AdminTransaction>, StorageError> {
                let tx = self.$writer().begin().await.map_err(storage_error)?;
                Ok(Box::new($transaction { tx, keyring: self.keyring.clone() }))
            }
        }

        #[async_trait]
        impl AdminTransaction for $transaction {
            async fn import_account(&mut self, import: AccountImport) -> Result<ImportOutcome, StorageError> {
                let keyring = self.keyring.clone();
                let keyring = keyring.as_deref().ok_or_else($crate::sql_transaction::missing_key)?;
                $crate::sql::accounts::import::<$db>(&mut self.tx, keyring, &import).await
            }

            async fn replace_account_credential(
                &mut self,
                account: AccountId,
                expected: CredentialRevision,
                write: CredentialWrite,
            ) -> Result<CredentialRevision, StorageError> {
                let keyring = self.keyring.clone();
                let keyring = keyring.as_deref().ok_or_else($crate::sql_transaction::missing_key)?;
                credentials::write_credential_cas(&mut self.tx, keyring, account, expected, &write).await
            }

            async fn update_account_scheduling(
                &mut self,
                account: AccountId,
                scheduling: &SchedulingFacts,
            ) -> Result<(), StorageError> {
                $crate::sql::accounts::update_scheduling::<$db>(&mut self.tx, account, scheduling).await
            }

            async fn replace_account_groups(&mut self, account: AccountId, groups: &[GroupId]) -> Result<(), StorageError> {
                $crate::sql::accounts::replace_groups::<$db>(&mut self.tx, account, groups).await
            }

            async fn delete_account(&mut self, account: AccountId) -> Result<(), StorageError> {
                $crate::sql::accounts::delete::<$db>(&mut self.tx, account).await
            }

            async fn set_account_egress_proxy(
                &mut self,
                account: AccountId,
                proxy: Option<&EgressProxy>,
            ) -> Result<(), StorageError> {
                let keyring = self.keyring.clone();
                let keyring = keyring.as_deref().ok_or_else($crate::sql_transaction::missing_key)?;
                $crate::sql::egress_proxies::set_account_proxy::<$db>(&mut self.tx, keyring, account, proxy).await
            }

            async fn set_group_egress_proxy(&mut self, group: GroupId, proxy: Option<&EgressProxy>) -> Result<(), StorageError> {
                let keyring = self.keyring.clone();
                let keyring = keyring.as_deref().ok_or_else($crate::sql_transaction::missing_key)?;
                $crate::sql::egress_proxies::set_group_proxy::<$db>(&mut self.tx, keyring, group, proxy).await
            }

            async fn create_group(&mut self, group: &GroupChanges) -> Result<GroupId, StorageError> {
                $crate::sql::groups::create::<$db>(&mut self.tx, group).await
            }

            async fn update_group(&mut self, group: GroupId, changes: &GroupChanges) -> Result<(), StorageError> {
                $crate::sql::groups::update::<$db>(&mut self.tx, group, changes).await
            }

            async fn replace_group_members(&mut self, group: GroupId, accounts: &[AccountId]) -> Result<(), StorageError> {
                $crate::sql::groups::replace_members::<$db>(&mut self.tx, group, accounts).await
            }

            async fn delete_group(&mut self, group: GroupId) -> Result<(), StorageError> {
                $crate::sql::groups::delete::<$db>(&mut self.tx, group).await
            }

            async fn create_client_key(&mut self, key: &NewClientKey) -> Result<ClientKeyId, StorageError> {
                $crate::sql::client_keys::create::<$db>(&mut self.tx, key).await
            }

            async fn update_client_key(&mut self, key: ClientKeyId, changes: &ClientKeyChanges) -> Result<(), StorageError> {
                $crate::sql::client_keys::update::<$db>(&mut self.tx, key, changes).await
            }

            async fn replace_client_key_groups(
                &mut self,
                key: ClientKeyId,
                groups: &[GroupId],
            ) -> Result<KeyScope, StorageError> {
                $crate::sql::client_keys::replace_groups::<$db>(&mut self.tx, key, groups).await
            }

            async fn delete_client_key(&mut self, key: ClientKeyId) -> Result<(), StorageError> {
                $crate::sql::client_keys::delete::<$db>(&mut self.tx, key).await
            }

            async fn create_admin_user(&mut self, user: &NewAdminUser) -> Result<AdminUserId, StorageError> {
                $crate::sql::admin_users::create_admin_user::<$db>(&mut self.tx, user).await
            }

            async fn set_admin_password(&mut self, user: AdminUserId, hash: &PasswordHash) -> Result<(), StorageError> {
                $crate::sql::admin_users::set_password::<$db>(&mut self.tx, user, hash).await
            }

            async fn set_admin_api_key(&mut self, user: AdminUserId, key: Option<&AdminApiKey>) -> Result<(), StorageError> {
                $crate::sql::admin_users::set_api_key::<$db>(&mut self.tx, user, key).await
            }

            async fn set_admin_totp(&mut self, user: AdminUserId, change: TotpChange<'_>) -> Result<(), StorageError> {
                let keyring = self.keyring.clone();
                $crate::sql::admin_users::set_totp::<$db>(&mut self.tx, keyring.as_deref(), user, change).await
            }

            async fn update_runtime_settings(&mut self, settings: &RuntimeSettings) -> Result<(), StorageError> {
                $crate::sql::settings::update_runtime_settings::<$db>(&mut self.tx, settings).await
            }

            async fn update_backup_settings(&mut self, update: &BackupSettingsUpdate) -> Result<(), StorageError> {
                let keyring = self.keyring.clone();
                $crate::sql::settings::update_backup_settings::<$db>(&mut self.tx, keyring.as_deref(), update).await
            }

            async fn create_alert_webhook(&mut self, webhook: &AlertWebhookWrite) -> Result<AlertWebhookId, StorageError> {
                let keyring = self.keyring.clone();
                $crate::sql::alert_settings::create_webhook::<$db>(&mut self.tx, keyring.as_deref(), webhook).await
            }

            async fn update_alert_webhook(
                &mut self,
                id: AlertWebhookId,
                webhook: &AlertWebhookWrite,
            ) -> Result<(), StorageError> {
                let keyring = self.keyring.clone();
                $crate::sql::alert_settings::update_webhook::<$db>(&mut self.tx, keyring.as_deref(), id, webhook).await
            }

            async fn delete_alert_webhook(&mut self, id: AlertWebhookId) -> Result<(), StorageError> {
                $crate::sql::alert_settings::delete_webhook::<$db>(&mut self.tx, id).await
            }

            async fn update_alert_rule(&mut self, rule: &AlertRule) -> Result<(), StorageError> {
                $crate::sql::alert_settings::update_rule::<$db>(&mut self.tx, rule).await
            }

            async fn commit(mut self: Box<Self>, entry: AuditEntry) -> Result<CommitReceipt, StorageError> {
                let revision: i64 = sqlx::query_scalar(
                    "UPDATE runtime_settings SET config_revision = config_revision + 1 WHERE id = 1 RETURNING config_revision",
                )
                .fetch_one(&mut *self.tx)
                .await
                .map_err(storage_error)?;
                let config_revision = ConfigRevision(revision);
                let audit_event_id = $crate::sql::audit::append::<$db>(&mut self.tx, &entry, config_revision).await?;
                self.tx.commit().await.map_err(storage_error)?;
                Ok(CommitReceipt { config_revision, audit_event_id })
            }

            async fn rollback(self: Box<Self>) -> Result<(), StorageError> {
                self.tx.rollback().await.map_err(storage_error)
            }
        }
    };
}

pub(crate) use sql_admin_transaction;
