//! Re-encryption of every sealed secret under the current master key (the second step of a key
//! rotation, see `docs/storage.md`). Each row is rewritten with a compare-and-swap on its old
//! ciphertext, so a concurrent credential write is never overwritten; re-encryption does not
//! change `credential_revision` (the credential itself is unchanged).

use secrecy::ExposeSecret;
use sqlx::postgres::PgRow;

use gateway_core::ports::StorageError;

use crate::crypto::{Keyring, SealedSecret};
use crate::postgres::PgStore;
use crate::postgres::column_values::{ColumnRead, closed, int8};
use crate::postgres::error_mapping::storage_error;
use crate::postgres::sealing::{BACKUP_SECRETS_CONTEXT, credential_context, crypto_error, totp_context};

/// What one [`PgStore::reencrypt_secrets`] call did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RotationReport {
    /// Rows re-sealed under the current key.
    pub reencrypted: u64,
    /// Rows whose ciphertext no configured key opens (left as they are).
    pub unreadable: u64,
    /// Rows still sealed under another key after this call (run again while it is above
    /// `unreadable`).
    pub remaining: u64,
}

/// One sealed column: where it lives and how its context is built.
struct SealedColumn {
    select: &'static str,
    update: &'static str,
    count: &'static str,
    context: fn(&PgRow) -> Result<String, StorageError>,
}

const COLUMNS: [SealedColumn; 3] = [
    SealedColumn {
        select: "SELECT id, credential_key_id AS key_id, credential_ciphertext AS ciphertext, provider, \
                 external_account_id FROM provider_accounts WHERE credential_key_id <> $1 ORDER BY id LIMIT $2",
        update: "UPDATE provider_accounts SET credential_ciphertext = $2, credential_key_id = $3 \
                 WHERE id = $1 AND credential_key_id = $4 AND credential_ciphertext = $5",
        count: "SELECT count(*) FROM provider_accounts WHERE credential_key_id <> $1",
        context: |row| {
            let provider = closed(row.col::<&str>("provider")?, "provider_accounts.provider")?;
            Ok(credential_context(provider, row.col::<&str>("external_account_id")?))
        },
    },
    SealedColumn {
        select: "SELECT id::bigint AS id, credentials_key_id AS key_id, credentials_ciphertext AS ciphertext \
                 FROM backup_settings WHERE credentials_key_id <> $1 ORDER BY id LIMIT $2",
        update: "UPDATE backup_settings SET credentials_ciphertext = $2, credentials_key_id = $3 \
                 WHERE id = $1 AND credentials_key_id = $4 AND credentials_ciphertext = $5",
        count: "SELECT count(*) FROM backup_settings WHERE credentials_key_id <> $1",
        context: |_| Ok(BACKUP_SECRETS_CONTEXT.to_owned()),
    },
    SealedColumn {
        select: "SELECT id, totp_key_id AS key_id, totp_secret_ciphertext AS ciphertext FROM admin_users \
                 WHERE totp_key_id <> $1 ORDER BY id LIMIT $2",
        update: "UPDATE admin_users SET totp_secret_ciphertext = $2, totp_key_id = $3 \
                 WHERE id = $1 AND totp_key_id = $4 AND totp_secret_ciphertext = $5",
        count: "SELECT count(*) FROM admin_users WHERE totp_key_id <> $1",
        context: |row| Ok(totp_context(row.col("id")?)),
    },
];

impl PgStore {
    /// Re-seals up to `batch` rows per sealed column that are not under the current key.
    pub async fn reencrypt_secrets(&self, batch: u32) -> Result<RotationReport, StorageError> {
        let keyring = self.keyring()?;
        let mut report = RotationReport::default();
        for column in &COLUMNS {
            self.reencrypt_column(keyring, column, batch, &mut report).await?;
            let remaining: i64 = sqlx::query_scalar(column.count)
                .bind(keyring.current_key_id())
                .fetch_one(self.pool())
                .await
                .map_err(storage_error)?;
            report.remaining += u64::try_from(remaining).unwrap_or(0);
        }
        Ok(report)
    }

    async fn reencrypt_column(
        &self,
        keyring: &Keyring,
        column: &SealedColumn,
        batch: u32,
        report: &mut RotationReport,
    ) -> Result<(), StorageError> {
        let rows = sqlx::query(column.select)
            .bind(keyring.current_key_id())
            .bind(int8(u64::from(batch), "batch")?)
            .fetch_all(self.pool())
            .await
            .map_err(storage_error)?;
        for row in &rows {
            let id: i64 = row.col("id")?;
            let old = SealedSecret { key_id: row.col("key_id")?, ciphertext: row.col("ciphertext")? };
            let context = (column.context)(row)?;
            let plaintext = match keyring.open(&old, &context) {
                Ok(plaintext) => plaintext,
                Err(error) => {
                    tracing::warn!(row = id, key_id = %old.key_id, %error, "sealed secret cannot be re-encrypted");
                    report.unreadable += 1;
                    continue;
                }
            };
            let new = keyring.seal(plaintext.expose_secret().as_bytes(), &context).map_err(crypto_error)?;
            let done = sqlx::query(column.update)
                .bind(id)
                .bind(&new.ciphertext)
                .bind(&new.key_id)
                .bind(&old.key_id)
                .bind(&old.ciphertext)
                .execute(self.pool())
                .await
                .map_err(storage_error)?;
            report.reencrypted += done.rows_affected();
        }
        Ok(())
    }
}
