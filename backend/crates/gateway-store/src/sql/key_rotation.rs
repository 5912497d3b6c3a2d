//! Re-sealing every sealed secret under the current master key (the second step of a key
//! rotation, `switchboard secrets reseal`; see `docs/storage.md`).
//!
//! - Batches walk each sealed column by id (keyset), so rows that no key opens are counted once
//!   and never stall the rows behind them.
//! - Each batch is one committed transaction: an interrupted run loses nothing, and the next run
//!   picks up the rows still under another key (the key id column says which).
//! - Each row is rewritten with a compare-and-swap on its old ciphertext, so a credential
//!   written meanwhile (a refresh, a re-authorisation) is never overwritten; such a row is
//!   counted as `skipped` (its writer sealed it under that writer's current key).
//! - Only the ciphertext and its key id change: no revision, no `updated_at`, no scheduling
//!   fact, no `config_revision` (decision 0142).

use secrecy::ExposeSecret;

use gateway_core::ports::StorageError;

use crate::crypto::{Keyring, SealedSecret};
use crate::postgres::column_values::int8;
use crate::postgres::sealing::crypto_error;
use crate::row_columns::RowColumns;
use crate::sql::store::SqlStore;
use crate::sql::{Dialect, Sql, Statement};
use crate::sql_shared::reseal::{self as shared, ResealPlan, ResealStore};

/// The kinds of sealed secrets, one sealed column each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SealedKind {
    /// `provider_accounts.credential_ciphertext`.
    Credentials,
    /// `admin_users.totp_secret_ciphertext`.
    TotpSecrets,
    /// `backup_settings.credentials_ciphertext`.
    BackupSecrets,
    /// `provider_accounts.egress_proxy_ciphertext`.
    AccountProxies,
    /// `account_groups.egress_proxy_ciphertext`.
    GroupProxies,
    /// `alert_webhooks.secret_ciphertext`.
    WebhookSecrets,
}

impl SealedKind {
    pub const ALL: [SealedKind; 6] = [
        Self::Credentials,
        Self::TotpSecrets,
        Self::BackupSecrets,
        Self::AccountProxies,
        Self::GroupProxies,
        Self::WebhookSecrets,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Credentials => "credentials",
            Self::TotpSecrets => "totp_secrets",
            Self::BackupSecrets => "backup_secrets",
            Self::AccountProxies => "account_proxies",
            Self::GroupProxies => "group_proxies",
            Self::WebhookSecrets => "webhook_secrets",
        }
    }

    pub(crate) fn column(self) -> &'static SealedColumn {
        match self {
            Self::Credentials => &CREDENTIALS,
            Self::TotpSecrets => &TOTP_SECRETS,
            Self::BackupSecrets => &BACKUP_SECRETS,
            Self::AccountProxies => &ACCOUNT_PROXIES,
            Self::GroupProxies => &GROUP_PROXIES,
            Self::WebhookSecrets => &WEBHOOK_SECRETS,
        }
    }
}

/// Counts of one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResealCounts {
    /// Rows re-sealed under the current key.
    pub resealed: u64,
    /// Rows whose ciphertext no configured key opens (left as they are).
    pub unreadable: u64,
    /// Rows rewritten by someone else between the read and the write (left to that writer).
    pub skipped: u64,
    /// Rows still sealed under another key after the run (a [`PgStore::reseal_batch`] does not
    /// count them: 0).
    pub remaining: u64,
}

/// One committed batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResealBatch {
    pub counts: ResealCounts,
    /// The highest id the batch looked at; `None` when there was nothing after `after_id`.
    pub last_id: Option<i64>,
}

/// What a whole [`PgStore::reseal_secrets`] run did, per kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResealReport {
    pub kinds: Vec<(SealedKind, ResealCounts)>,
}

impl ResealReport {
    pub fn counts(&self, kind: SealedKind) -> ResealCounts {
        self.kinds.iter().find(|(k, _)| *k == kind).map(|(_, c)| *c).unwrap_or_default()
    }
}

/// One sealed column: where it lives and how its context is built. The statements are the same
/// text in both databases; the sealing context of a row is `sql_shared::reseal::context`.
pub(crate) struct SealedColumn {
    pub(crate) select: &'static str,
    pub(crate) update: &'static str,
    pub(crate) count: &'static str,
}

const CREDENTIALS: SealedColumn = SealedColumn {
    select: "SELECT id, credential_key_id AS key_id, credential_ciphertext AS ciphertext, provider, \
             external_account_id FROM provider_accounts WHERE credential_key_id <> $1 AND id > $2 \
             ORDER BY id LIMIT $3",
    update: "UPDATE provider_accounts SET credential_ciphertext = $2, credential_key_id = $3 \
             WHERE id = $1 AND credential_key_id = $4 AND credential_ciphertext = $5",
    count: "SELECT count(*) AS remaining FROM provider_accounts WHERE credential_key_id <> $1",
};

const TOTP_SECRETS: SealedColumn = SealedColumn {
    select: "SELECT id, totp_key_id AS key_id, totp_secret_ciphertext AS ciphertext FROM admin_users \
             WHERE totp_key_id <> $1 AND id > $2 ORDER BY id LIMIT $3",
    update: "UPDATE admin_users SET totp_secret_ciphertext = $2, totp_key_id = $3 \
             WHERE id = $1 AND totp_key_id = $4 AND totp_secret_ciphertext = $5",
    count: "SELECT count(*) AS remaining FROM admin_users WHERE totp_key_id <> $1",
};

const BACKUP_SECRETS: SealedColumn = SealedColumn {
    select: "SELECT CAST(id AS BIGINT) AS id, credentials_key_id AS key_id, credentials_ciphertext AS ciphertext \
             FROM backup_settings WHERE credentials_key_id <> $1 AND id > $2 ORDER BY id LIMIT $3",
    update: "UPDATE backup_settings SET credentials_ciphertext = $2, credentials_key_id = $3 \
             WHERE id = $1 AND credentials_key_id = $4 AND credentials_ciphertext = $5",
    count: "SELECT count(*) AS remaining FROM backup_settings WHERE credentials_key_id <> $1",
};

const ACCOUNT_PROXIES: SealedColumn = SealedColumn {
    select: "SELECT id, egress_proxy_key_id AS key_id, egress_proxy_ciphertext AS ciphertext, provider, \
             external_account_id FROM provider_accounts WHERE egress_proxy_key_id <> $1 AND id > $2 \
             ORDER BY id LIMIT $3",
    update: "UPDATE provider_accounts SET egress_proxy_ciphertext = $2, egress_proxy_key_id = $3 \
             WHERE id = $1 AND egress_proxy_key_id = $4 AND egress_proxy_ciphertext = $5",
    count: "SELECT count(*) AS remaining FROM provider_accounts WHERE egress_proxy_key_id <> $1",
};

const GROUP_PROXIES: SealedColumn = SealedColumn {
    select: "SELECT id, egress_proxy_key_id AS key_id, egress_proxy_ciphertext AS ciphertext FROM account_groups \
             WHERE egress_proxy_key_id <> $1 AND id > $2 ORDER BY id LIMIT $3",
    update: "UPDATE account_groups SET egress_proxy_ciphertext = $2, egress_proxy_key_id = $3 \
             WHERE id = $1 AND egress_proxy_key_id = $4 AND egress_proxy_ciphertext = $5",
    count: "SELECT count(*) AS remaining FROM account_groups WHERE egress_proxy_key_id <> $1",
};

const WEBHOOK_SECRETS: SealedColumn = SealedColumn {
    select: "SELECT id, secret_key_id AS key_id, secret_ciphertext AS ciphertext FROM alert_webhooks \
             WHERE secret_key_id <> $1 AND id > $2 ORDER BY id LIMIT $3",
    update: "UPDATE alert_webhooks SET secret_ciphertext = $2, secret_key_id = $3 \
             WHERE id = $1 AND secret_key_id = $4 AND secret_ciphertext = $5",
    count: "SELECT count(*) AS remaining FROM alert_webhooks WHERE secret_key_id <> $1",
};

/// Re-sealing on either store (`switchboard secrets reseal`).
#[async_trait::async_trait]
pub trait SecretsReseal {
    /// Re-seals every kind to the end, `batch` rows per committed transaction.
    async fn reseal_secrets(&self, batch: u32) -> Result<ResealReport, StorageError>;

    /// Re-seals one kind to the end, batch by batch; then counts what is still under another key.
    async fn reseal_kind(&self, kind: SealedKind, batch: u32) -> Result<ResealCounts, StorageError>;

    /// Rows of `kind` sealed under another key than the current one.
    async fn count_not_current(&self, kind: SealedKind) -> Result<u64, StorageError>;

    /// Re-seals up to `batch` rows of `kind` with an id above `after_id` that are not under the
    /// current key, in one committed transaction (on SQLite's single writer).
    async fn reseal_batch(&self, kind: SealedKind, after_id: i64, batch: u32) -> Result<ResealBatch, StorageError>;
}

#[async_trait::async_trait]
impl<D: Dialect> SecretsReseal for SqlStore<D> {
    async fn reseal_secrets(&self, batch: u32) -> Result<ResealReport, StorageError> {
        shared::reseal_secrets(self, batch).await
    }

    async fn reseal_kind(&self, kind: SealedKind, batch: u32) -> Result<ResealCounts, StorageError> {
        shared::reseal_kind(self, kind, batch).await
    }

    async fn count_not_current(&self, kind: SealedKind) -> Result<u64, StorageError> {
        let row = Statement::<D>::new(&Sql::same(kind.column().count))
            .bind(self.keyring()?.current_key_id())
            .fetch_one(self.reader())
            .await?;
        Ok(u64::try_from(row.col::<i64>("remaining")?).unwrap_or(0))
    }

    async fn reseal_batch(&self, kind: SealedKind, after_id: i64, batch: u32) -> Result<ResealBatch, StorageError> {
        let keyring = self.keyring()?;
        let column = kind.column();
        let mut tx = self.writer().begin().await.map_err(D::storage_error)?;
        let rows = Statement::<D>::new(&Sql::same(column.select))
            .bind(keyring.current_key_id())
            .bind(after_id)
            .bind(int8(u64::from(batch.max(1)), "batch")?)
            .fetch_all(&mut *tx)
            .await?;
        let ResealPlan { writes, mut batch } = ResealPlan::new(keyring, kind, &rows)?;
        for write in &writes {
            let touched = Statement::<D>::new(&Sql::same(column.update))
                .bind(write.id)
                .bind(write.new.ciphertext.as_slice())
                .bind(&write.new.key_id)
                .bind(&write.old.key_id)
                .bind(write.old.ciphertext.as_slice())
                .execute(&mut *tx)
                .await?;
            ResealPlan::written(&mut batch, touched);
        }
        tx.commit().await.map_err(D::storage_error)?;
        Ok(batch)
    }
}

#[async_trait::async_trait]
impl<D: Dialect> ResealStore for SqlStore<D> {
    async fn reseal_one_batch(&self, kind: SealedKind, after_id: i64, batch: u32) -> Result<ResealBatch, StorageError> {
        self.reseal_batch(kind, after_id, batch).await
    }

    async fn count_remaining(&self, kind: SealedKind) -> Result<u64, StorageError> {
        self.count_not_current(kind).await
    }
}

/// The row's secret sealed under the current key; `None` when no configured key opens it.
pub(crate) fn reseal(
    keyring: &Keyring,
    kind: SealedKind,
    id: i64,
    old: &SealedSecret,
    context: &str,
) -> Result<Option<SealedSecret>, StorageError> {
    match keyring.open(old, context) {
        Ok(plaintext) => keyring.seal(plaintext.expose_secret().as_bytes(), context).map(Some).map_err(crypto_error),
        Err(error) => {
            tracing::warn!(kind = kind.as_str(), row = id, key_id = %old.key_id, %error, "sealed secret cannot be re-sealed");
            Ok(None)
        }
    }
}
