//! [`UnitOfWork`] and [`SqliteAdminTransaction`]: admin mutations in one database transaction whose
//! commit bumps `config_revision` and writes the audit row. Dropping the value rolls back.

use std::sync::Arc;

use async_trait::async_trait;
use sqlx::Sqlite;

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
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::{SqliteStore, credentials};

crate::sql_transaction::sql_admin_transaction!(
    SqliteAdminTransaction,
    SqliteStore,
    Sqlite,
    writer,
    "SqliteAdminTransaction"
);
